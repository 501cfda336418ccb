package integrations

import (
	"context"
	"fmt"
)

// DefaultRotateBatch is how many configurations one transaction of
// [Service.RotateSecrets] re-seals at most when RotateOptions.BatchSize is
// not set: about a tenth of a second of work on PostgreSQL, so that a write
// to a brand of the batch waits at most that long.
const DefaultRotateBatch = 200

// maxRotateBatch bounds RotateOptions.BatchSize.
const maxRotateBatch = 1000

// rotateBrandsPerRead is how many brands RotateSecrets reads at once
// (outside any transaction) to find what to re-seal.
const rotateBrandsPerRead = 100

// maxUnreadableListed bounds RotateReport.UnreadableConfigs.
const maxUnreadableListed = 20

// RotateOptions configures [Service.RotateSecrets].
type RotateOptions struct {
	// BatchSize is how many configurations one transaction re-seals at
	// most (DefaultRotateBatch when 0 or less; at most 1,000).
	BatchSize int
	// Progress, when not nil, is called after every committed batch with
	// the counts so far, in the goroutine of RotateSecrets (a command-line
	// tool draws its progress from it). It must not block for long.
	Progress func(RotateReport)
}

// RotateReport counts what [Service.RotateSecrets] did, so far (each
// Progress call) or in all (its result).
type RotateReport struct {
	// Brands and Configs are how many brands, and configurations, holding a
	// secret were read.
	Brands, Configs int
	// Resealed is how many secrets were re-sealed under the primary key
	// and committed; ResealedConfigs, how many configurations they belong
	// to.
	Resealed, ResealedConfigs int
	// Batches is how many transactions were committed.
	Batches int
	// Unreadable is how many secrets no key of the ring opens (their key
	// is not in the ring, or they were altered): they are left as they
	// are. UnreadableConfigs names the first 20 of their configurations.
	Unreadable        int
	UnreadableConfigs []ConfigRef
}

// ConfigRef names one configuration.
type ConfigRef struct {
	Kind    RecordKind
	BrandID string
	ID      string
}

// RotateSecrets re-seals, under the key ring's primary key, every stored
// secret that another key sealed, brand by brand, in batches of at most
// opts.BatchSize configurations, each batch its own transaction. A batch
// locks the brands it touches against other integration writes (brands in
// ID order) and writes the sealed secrets only: versions, ETags, times and
// revisions stay, and no hook runs. Writes in other brands never wait for
// it; writes in a brand of the batch wait at most one batch.
//
// It is resumable: every secret names the key that sealed it, so one
// already under the primary is skipped. If it stops part-way (an error,
// ctx cancelled, the process killed), each secret is under either the old
// key or the new one, both of which the ring holds, so everything stays
// readable; running it again finishes the work. Once it returns without
// error, [Service.SecretsByKey] tells whether any secret still needs an
// old key (a write by an instance that still had the old primary can seal
// one after the rotation read its brand): retire a key only when that
// count is zero.
//
// It returns what it did. A secret that no key of the ring opens is left
// as is and counted (RotateReport.Unreadable); the rest is rotated, and the
// error is then ErrSecretUnreadable. Other errors (a store error, ctx's)
// end it with the batches committed so far kept and counted in the report.
func (s *Service) RotateSecrets(ctx context.Context, opts RotateOptions) (RotateReport, error) {
	size := opts.BatchSize
	if size <= 0 {
		size = DefaultRotateBatch
	}
	size = min(size, maxRotateBatch)
	r := rotation{s: s, size: size, progress: opts.Progress, primary: s.keys.Primary()}
	after := ""
	for {
		page, err := s.store.SealedSecrets(ctx, after, rotateBrandsPerRead)
		if err != nil {
			return r.rep, err
		}
		if len(page) == 0 {
			break
		}
		for i, sec := range page {
			if i == 0 || sec.BrandID != page[i-1].BrandID {
				r.rep.Brands++
			}
			r.rep.Configs++
			if r.needsReseal(sec) {
				r.add(sec)
			}
			if len(r.batch) == size {
				if err := r.flush(ctx); err != nil {
					return r.rep, err
				}
			}
		}
		after = page[len(page)-1].BrandID
	}
	if err := r.flush(ctx); err != nil {
		return r.rep, err
	}
	if r.rep.Unreadable > 0 {
		return r.rep, ErrSecretUnreadable.WithCause(fmt.Errorf(
			"integrations: the key rotation left %d secrets that no key of the ring opens, of %d configurations (first: %v)",
			r.rep.Unreadable, len(r.unreadable), r.rep.UnreadableConfigs))
	}
	return r.rep, nil
}

// rotation is the state of one RotateSecrets run.
type rotation struct {
	s        *Service
	size     int
	progress func(RotateReport)
	primary  string
	rep      RotateReport
	// batch holds, brand by brand in ID order, the configurations to
	// re-seal in the next transaction.
	batch []ConfigRef
	// unreadable holds the configurations found with an unreadable secret.
	unreadable map[ConfigRef]bool
}

// needsReseal reports whether a secret of sec is sealed by a key other
// than the primary. A secret that names no key is unreadable, counted
// here: no transaction is needed to skip it.
func (r *rotation) needsReseal(sec SealedSecrets) bool {
	needs := false
	for _, ct := range sec.Secrets {
		id, err := KeyIDOf(ct)
		switch {
		case err != nil:
			r.markUnreadable(sec, 1)
		case id != r.primary:
			needs = true
		}
	}
	return needs
}

// markUnreadable counts n unreadable secrets of sec and names its
// configuration.
func (r *rotation) markUnreadable(sec SealedSecrets, n int) {
	r.rep.Unreadable += n
	ref := ConfigRef{Kind: sec.Kind, BrandID: sec.BrandID, ID: sec.ID}
	if r.unreadable == nil {
		r.unreadable = map[ConfigRef]bool{}
	}
	if !r.unreadable[ref] {
		r.unreadable[ref] = true
		if len(r.rep.UnreadableConfigs) < maxUnreadableListed {
			r.rep.UnreadableConfigs = append(r.rep.UnreadableConfigs, ref)
		}
	}
}

// add queues sec's configuration for the next batch.
func (r *rotation) add(sec SealedSecrets) {
	r.batch = append(r.batch, ConfigRef{Kind: sec.Kind, BrandID: sec.BrandID, ID: sec.ID})
}

// flush re-seals the queued configurations in one transaction: it locks
// their brands in order and reads their secrets again under the lock (a
// write may have changed them since they were read), re-seals those not
// under the primary, and writes them. Once committed, it counts them and
// reports progress.
func (r *rotation) flush(ctx context.Context) error {
	if len(r.batch) == 0 {
		return nil
	}
	var resealed, configs int
	type bad struct {
		sec SealedSecrets
		n   int
	}
	var unreadable []bad
	err := r.s.store.IntegrationsTx(ctx, func(tx Tx) error {
		resealed, configs, unreadable = 0, 0, nil
		cur, err := tx.LockSealedSecrets(ctx, r.batch)
		if err != nil {
			return err
		}
		var updates []SealedSecrets
		for _, sec := range cur {
			n, failed := r.s.resealAll(&sec)
			if failed > 0 {
				unreadable = append(unreadable, bad{sec, failed})
			}
			if n > 0 {
				resealed += n
				configs++
				updates = append(updates, sec)
			}
		}
		if len(updates) == 0 {
			return nil
		}
		return tx.UpdateSecrets(ctx, updates)
	})
	if err != nil {
		return err
	}
	r.batch = r.batch[:0]
	for _, b := range unreadable {
		r.markUnreadable(b.sec, b.n)
	}
	r.rep.Resealed += resealed
	r.rep.ResealedConfigs += configs
	r.rep.Batches++
	if r.progress != nil {
		rep := r.rep
		rep.UnreadableConfigs = append([]ConfigRef(nil), rep.UnreadableConfigs...)
		r.progress(rep)
	}
	return nil
}

// resealAll re-seals, in place, every secret of sec that a key other than
// the primary sealed, and returns how many it re-sealed, and how many did
// not open (left as they are). A secret that names no key is left as it
// is and not counted: the read that found it counted it.
func (s *Service) resealAll(sec *SealedSecrets) (n, unreadable int) {
	next := make(map[string][]byte, len(sec.Secrets))
	for name, ct := range sec.Secrets {
		f := secretField{brandID: sec.BrandID, recordID: sec.ID, kind: sec.Kind, field: name}
		if _, err := KeyIDOf(ct); err != nil {
			next[name] = ct
			continue
		}
		out, did, err := s.reseal(f, ct)
		switch {
		case err != nil:
			unreadable++
			next[name] = ct
		case did:
			n++
			next[name] = out
		default:
			next[name] = ct
		}
	}
	sec.Secrets = next
	return n, unreadable
}

// SecretsByKey returns how many stored secrets each key sealed, by key ID
// ("" for a secret too malformed to name one). It reads every
// configuration holding a secret, brand by brand, outside any transaction.
// A key may leave the ring once no secret needs it: after
// [Service.RotateSecrets], SecretsByKey(ctx)[oldID] == 0.
func (s *Service) SecretsByKey(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	after := ""
	for {
		page, err := s.store.SealedSecrets(ctx, after, rotateBrandsPerRead)
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			return out, nil
		}
		for _, sec := range page {
			for _, ct := range sec.Secrets {
				id, _ := KeyIDOf(ct)
				out[id]++
			}
		}
		after = page[len(page)-1].BrandID
	}
}
