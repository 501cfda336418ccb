// Package envelope holds the one response envelope every brandbase answer is
// wrapped in, and the one error type that crosses package lines.
//
// # The envelope
//
// Every HTTP response of the adapter, errors included, is an [Envelope]:
//
//	{"success":true,"statusCode":200,"message":"OK","data":{...},"errors":[]}
//
// statusCode always equals the HTTP status, and errors is [] on success, never
// null.
//
// # Errors
//
// Domain and store methods fail with an [*Error]: a [Kind] from a closed set
// (which the HTTP adapter maps to a status), a stable machine-readable code, a
// message that is safe to show, and optional per-field items. Anything that is
// not an *Error is an internal fault; its text is never sent to a client.
// In-process callers tell errors apart with [KindOf] or [errors.As].
package envelope

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// Envelope is the JSON object that wraps every response.
type Envelope struct {
	Success    bool        `json:"success"`
	StatusCode int         `json:"statusCode"`
	Message    string      `json:"message"`
	Data       any         `json:"data"`
	Errors     []ErrorItem `json:"errors"`
}

// ErrorItem is one entry of an envelope's errors array. Field is omitted when
// the item is not about a request field. Message and Details carry the same
// text: clients of the spec's origin read message, older ones details.
type ErrorItem struct {
	// Code is a stable machine-readable string such as "required" or
	// "brand_not_found".
	Code string `json:"code"`
	// Field names the request field (query parameter, body field or header)
	// the item is about; empty otherwise.
	Field string `json:"field,omitempty"`
	// Message is the human-readable explanation, as Details.
	Message string `json:"message"`
	// Details is the human-readable explanation, as Message.
	Details string `json:"details"`
}

// Success returns the envelope of a successful response. An empty message becomes
// the status text.
func Success(status int, message string, data any) Envelope {
	if message == "" {
		message = http.StatusText(status)
	}
	return Envelope{Success: true, StatusCode: status, Message: message, Data: data, Errors: []ErrorItem{}}
}

// Failure returns the envelope of a failed response with the given status.
// Its errors are e's field items, or a single item carrying e's code and
// message when e has none; an item built without a Message gets its Details
// as Message. The cause wrapped in e is never included.
func Failure(status int, e *Error) Envelope {
	items := slices.Clone(e.Items())
	for i := range items {
		if items[i].Message == "" {
			items[i].Message = items[i].Details
		}
	}
	return Envelope{Success: false, StatusCode: status, Message: e.Message, Data: nil, Errors: items}
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// scratchPool holds the buffers Marshal appends an Appender's envelope to.
var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// Marshal encodes env as JSON followed by a newline, as a json.Encoder
// with HTML escaping off writes it. The Data of a success that implements
// Appender writes itself, without reflection; the bytes are the same.
func Marshal(env Envelope) ([]byte, error) {
	if data, ok := env.Data.(Appender); ok && len(env.Errors) == 0 {
		scratch := scratchPool.Get().(*[]byte)
		b, err := appendSuccess((*scratch)[:0], env, data)
		if err != nil {
			scratchPool.Put(scratch)
			return nil, err
		}
		out := bytes.Clone(b)
		if cap(b) <= 1<<20 {
			*scratch = b
		}
		scratchPool.Put(scratch)
		return out, nil
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// WriteJSON writes body, an encoded envelope, with the given status and the
// JSON content type and length headers.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Write encodes env and writes it with env.StatusCode. If env cannot be
// encoded (a data value that JSON rejects), a generic 500 envelope is written
// instead and the encoding error is returned for the caller to log.
func Write(w http.ResponseWriter, env Envelope) error {
	body, err := Marshal(env)
	if err != nil {
		fallback, _ := Marshal(Failure(http.StatusInternalServerError, Internal(err)))
		WriteJSON(w, http.StatusInternalServerError, fallback)
		return err
	}
	WriteJSON(w, env.StatusCode, body)
	return nil
}
