package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// progress shows how far an import is: on a terminal, a bar redrawn in
// place from the bytes read of the file; elsewhere (a log, a pipe), a plain
// line per batch. It is written here rather than taken from a library:
// it is forty lines, and a terminal is told by the standard library
// (a character device), so the command needs no dependency for it.
type progress struct {
	w     io.Writer
	tty   bool
	total int64        // the file's size; 0 when unknown
	read  atomic.Int64 // bytes read so far
	label string
	last  time.Time
}

// newProgress returns the progress of reading a file of size total to w.
func newProgress(w io.Writer, label string, total int64) *progress {
	p := &progress{w: w, total: total, label: label}
	if f, ok := w.(*os.File); ok {
		p.tty = isTerminal(f)
	}
	return p
}

// reader wraps r to count the bytes read.
func (p *progress) reader(r io.Reader) io.Reader { return countingReader{r, &p.read} }

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// update shows rows read, added, updated and skipped so far.
func (p *progress) update(rows, added, updated, skipped int) {
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %d rows, %d added, %d updated, %d skipped\n", p.label, rows, added, updated, skipped)
		return
	}
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw(rows, false)
}

// draw redraws the bar; done ends its line.
func (p *progress) draw(rows int, done bool) {
	const width = 30
	frac := 1.0
	if p.total > 0 && !done {
		frac = min(1, float64(p.read.Load())/float64(p.total))
	}
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d rows", p.label, strings.Repeat("#", n), strings.Repeat(".", width-n), frac*100, rows)
	if done {
		fmt.Fprintln(p.w)
	}
}

// finish completes the bar on a terminal.
func (p *progress) finish(rows int) {
	if p.tty {
		p.draw(rows, true)
	}
}
