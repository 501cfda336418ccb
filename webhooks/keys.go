package webhooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/brandbase/brandbase/integrations"
)

// rotatePage is how many endpoints RotateKeys reads at once.
const rotatePage = 200

// KeysReport counts what [Service.RotateKeys] did.
type KeysReport struct {
	// Endpoints is how many endpoints were read; Resealed how many secrets
	// were re-sealed under the primary key.
	Endpoints, Resealed int
	// Unreadable is how many secrets no key of the ring opens (left as
	// they are).
	Unreadable int
}

// RotateKeys re-seals, under the key ring's primary key, every signing
// secret another key sealed (the command's keys rotate runs it beside
// integrations.Service.RotateSecrets), one endpoint per transaction, its
// row locked. It is resumable: a secret already under the primary is
// skipped. A secret no key opens is left and counted; the error is then
// integrations.ErrSecretUnreadable. Store errors end it, with what was
// done counted.
func (s *Service) RotateKeys(ctx context.Context) (KeysReport, error) {
	var rep KeysReport
	primary := s.keys.Primary()
	after := ""
	for {
		page, err := s.store.WebhooksAfter(ctx, after, rotatePage)
		if err != nil || len(page) == 0 {
			return rep, s.keysDone(rep, err)
		}
		for _, r := range page {
			rep.Endpoints++
			if !s.needsReseal(r, primary) {
				continue
			}
			n, bad := 0, 0
			_, err := s.store.UpdateWebhook(ctx, r.BrandID, r.ID, func(r *Record) error {
				n, bad = s.resealRecord(r, primary)
				if n == 0 {
					return errUnchanged
				}
				return nil
			})
			if err != nil && !errors.Is(err, errUnchanged) && !isNotFound(err) {
				return rep, err
			}
			if err == nil {
				rep.Resealed += n
			}
			rep.Unreadable += bad
		}
		after = page[len(page)-1].ID
	}
}

// keysDone returns RotateKeys' final error.
func (s *Service) keysDone(rep KeysReport, err error) error {
	if err == nil && rep.Unreadable > 0 {
		return integrations.ErrSecretUnreadable.WithCause(fmt.Errorf(
			"webhooks: %d signing secrets open with no key of the ring", rep.Unreadable))
	}
	return err
}

// needsReseal reports whether a secret of r is sealed by another key than
// primary.
func (s *Service) needsReseal(r Record, primary string) bool {
	for _, ct := range [][]byte{r.Secret, r.OldSecret} {
		if len(ct) == 0 {
			continue
		}
		if id, err := integrations.KeyIDOf(ct); err != nil || id != primary {
			return true
		}
	}
	return false
}

// resealRecord re-seals r's secrets not under primary, in place, and
// returns how many it re-sealed and how many did not open.
func (s *Service) resealRecord(r *Record, primary string) (n, bad int) {
	for _, f := range []struct {
		name string
		ct   *[]byte
	}{{"secret", &r.Secret}, {"old", &r.OldSecret}} {
		if len(*f.ct) == 0 {
			continue
		}
		if id, err := integrations.KeyIDOf(*f.ct); err == nil && id == primary {
			continue
		}
		key, err := s.open(*r, f.name, *f.ct)
		if err != nil {
			bad++
			continue
		}
		*f.ct = s.seal(r.BrandID, r.ID, f.name, key)
		n++
	}
	return n, bad
}

// SecretsByKey returns how many signing secrets each key sealed, by key
// ID ("" for one too malformed to name a key): a key may leave the ring
// once no secret needs it.
func (s *Service) SecretsByKey(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	after := ""
	for {
		page, err := s.store.WebhooksAfter(ctx, after, rotatePage)
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			return out, nil
		}
		for _, r := range page {
			for _, ct := range [][]byte{r.Secret, r.OldSecret} {
				if len(ct) > 0 {
					id, _ := integrations.KeyIDOf(ct)
					out[id]++
				}
			}
		}
		after = page[len(page)-1].ID
	}
}

// isNotFound reports an endpoint deleted meanwhile.
func isNotFound(err error) bool { return errors.Is(err, ErrEndpointNotFound) }
