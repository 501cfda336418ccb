package integrations

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/metric"

	"github.com/brandbase/brandbase/auth"
	"github.com/brandbase/brandbase/envelope"
	"github.com/brandbase/brandbase/events"
	"github.com/brandbase/brandbase/internal/telemetry"
	"github.com/brandbase/brandbase/outbox"
)

// Error codes of the integrations service beyond field errors.
const (
	// CodeAccessDenied: the actor lacks the permission in the brand (403);
	// the same code auth gives a body authKey that is not valid there.
	CodeAccessDenied = auth.CodeAccessDenied
	// CodePreconditionFailed: the Precondition (If-Match) does not hold
	// (412).
	CodePreconditionFailed = "precondition_failed"
)

// Service applies the rules of app integrations and their configurations on
// top of a Store. It is safe for concurrent use.
//
// Methods that change something take the acting principal and work in the
// actor's own brand (Principal.BrandID): the actor names the brand, no
// argument does. The actor must hold the write permission of the kind
// there (auth.PermAnalyticsWrite or auth.PermPaymentGatewayWrite, or
// auth.PermAll), else they fail with KindForbidden (code access_denied); a
// principal of another brand acting in this one ([auth.Acting.Actor]) holds
// none. The actor is a user's principal (from auth.Service.Authenticate
// after a login), or, for the host acting on its own behalf,
// auth.SystemPrincipal of the brand, whose changes revisions record as the
// system's (Revision.ActorSystem). Records are looked up in that brand (or,
// for reads, the given brand) only: an ID of another brand is KindNotFound.
type Service struct {
	store Store
	keys  *KeyRing
	now   func() time.Time
	// meters and tel record updates and precondition failures; tel is nil
	// without a meter provider.
	meters metric.MeterProvider
	tel    *telemetry.Integrations

	mu     sync.Mutex
	hooks  []hook
	hookID int
}

type hook struct {
	id int
	fn func(context.Context, IntegrationUpdated)
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock the service reads the time from (time.Now by
// default); tests use it to move time without sleeping.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// WithKeyRing sets the key ring that seals and opens secrets. Without one
// (or with nil) the service uses an [EphemeralKeyRing], whose secrets cannot
// be read after a restart: configure one for any persistent store.
func WithKeyRing(k *KeyRing) Option {
	return func(s *Service) {
		if k != nil {
			s.keys = k
		}
	}
}

// WithMeterProvider makes the service count, with mp, the changes it
// commits (one a revision written) and the updates its preconditions
// (If-Match) refuse, each by kind of record (docs/observability.md).
// Without it, or with nil, nothing is recorded; the global otel provider is
// never read.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Service) { s.meters = mp }
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.tel = telemetry.NewIntegrations(s.meters)
	if s.keys == nil {
		s.keys = EphemeralKeyRing()
	}
	return s
}

// IntegrationUpdated is the event of one committed update of an app
// integration or a configuration: the revision it wrote.
type IntegrationUpdated struct {
	Revision Revision
}

// OnIntegrationUpdated registers fn to be called after every committed
// update (one call per revision written, in order), synchronously in the
// updating goroutine with its context, and returns a function that
// unregisters it. fn must not block for long; a panic in fn is recovered and
// ignored, since the update is already committed.
func (s *Service) OnIntegrationUpdated(fn func(ctx context.Context, ev IntegrationUpdated)) (unsubscribe func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hookID++
	id := s.hookID
	s.hooks = append(slices.Clip(s.hooks), hook{id: id, fn: fn})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.hooks = slices.DeleteFunc(slices.Clone(s.hooks), func(h hook) bool { return h.id == id })
	}
}

// emit calls the hooks with the revisions of a committed transaction.
func (s *Service) emit(ctx context.Context, revs []Revision) {
	if len(revs) == 0 {
		return
	}
	s.mu.Lock()
	hooks := s.hooks
	s.mu.Unlock()
	for _, rev := range revs {
		for _, h := range hooks {
			func() {
				defer func() { _ = recover() }()
				h.fn(ctx, IntegrationUpdated{Revision: rev.Clone()})
			}()
		}
	}
}

// Precondition decides, inside an update's transaction, whether the update
// may go on, given the entity tag of the record's current answer (see
// [Analytics.ETag]). An update whose Precondition returns false fails with
// KindPreconditionFailed and changes nothing. The HTTP adapter builds one
// from If-Match.
type Precondition func(etag string) bool

// IfMatch returns a Precondition that holds when the record's current
// entity tag is etag.
func IfMatch(etag string) Precondition {
	return func(cur string) bool { return cur == etag }
}

func preconditionFailed() error {
	return envelope.New(envelope.KindPreconditionFailed, CodePreconditionFailed,
		"The record has changed since it was read (If-Match does not match its ETag).")
}

// authorize checks that actor may write records guarded by perm in brandID.
func authorize(actor auth.Principal, brandID string, perm auth.Permission) error {
	if err := requireBrand(brandID); err != nil {
		return err
	}
	if actor.UserID == "" && !actor.System || actor.BrandID != brandID || !actor.Can(perm) {
		return envelope.New(envelope.KindForbidden, CodeAccessDenied,
			"You do not have the permission to change this integration in this brand.")
	}
	return nil
}

// requireBrand refuses an empty brand ID, which the store would read as
// "every brand".
func requireBrand(brandID string) error {
	if brandID == "" {
		return envelope.Invalid("The brand is required.", envelope.Field("brandId", "required", "The brand ID is required."))
	}
	return nil
}

// permissionFor returns the permission that guards records of type t
// (auth.PermAll for a type of no kind, which only a store could hold).
func permissionFor(t Type) auth.Permission {
	for _, k := range kinds {
		if k.appType == t {
			return k.perm
		}
	}
	return auth.PermAll
}

// parseType returns the canonical type for s, matched case-insensitively.
func parseType(s Type) (Type, bool) {
	for _, k := range kinds {
		if strings.EqualFold(strings.TrimSpace(string(s)), string(k.appType)) {
			return k.appType, true
		}
	}
	return "", false
}

// clock returns the current time as stores keep it: UTC, microseconds.
func (s *Service) clock() time.Time {
	return s.now().UTC().Truncate(time.Microsecond)
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// txState collects what one transaction does: the time it runs at, its
// actor, and the revisions it writes.
type txState struct {
	tx    Tx
	now   time.Time
	actor auth.Principal
	revs  []Revision
	// refused is the kind of the record whose precondition failed.
	refused RecordKind
}

// revise writes the revision of a change of a record to version, by the
// transaction's actor.
func (st *txState) revise(ctx context.Context, kind RecordKind, brandID, recordID string, version int64, fields []string) error {
	if fields == nil {
		fields = []string{}
	}
	slices.Sort(fields)
	rev := Revision{
		ID: newID(), BrandID: brandID, Kind: kind, RecordID: recordID, Version: version,
		ActorUserID: st.actor.UserID, ActorSystem: st.actor.System, At: st.now, Fields: fields,
	}
	if err := st.tx.InsertRevision(ctx, rev); err != nil {
		return err
	}
	if err := st.tx.Enqueue(ctx, revisionEvent(rev)); err != nil {
		return err
	}
	st.revs = append(st.revs, rev)
	return nil
}

// revisionEvent returns the outbox item of the event of rev:
// integration.deleted for a deletion, integration.updated otherwise
// (naming the changed fields).
func revisionEvent(rev Revision) outbox.Item {
	typ, changed := events.IntegrationUpdated, rev.Fields
	if rev.Deleted() {
		typ, changed = events.IntegrationDeleted, nil
	}
	return events.Must(typ, rev.BrandID, rev.RecordID, rev.At, events.Integration{Kind: string(rev.Kind),
		ID: rev.RecordID, Version: rev.Version, Changed: changed, ActorUserID: rev.ActorUserID})
}

// created writes, in the transaction, the integration.created event of the
// new record of kind with that ID (a creation writes no revision).
func (st *txState) created(ctx context.Context, kind RecordKind, brandID, recordID string) error {
	return st.tx.Enqueue(ctx, events.Must(events.IntegrationCreated, brandID, recordID, st.now,
		events.Integration{Kind: string(kind), ID: recordID, Version: 1, ActorUserID: st.actor.UserID}))
}

// inTx runs fn in one store transaction and, once it committed, emits the
// revisions it wrote.
func (s *Service) inTx(ctx context.Context, actor auth.Principal, fn func(st *txState) error) error {
	var st *txState
	err := s.store.IntegrationsTx(ctx, func(tx Tx) error {
		st = &txState{tx: tx, now: s.clock(), actor: actor}
		return fn(st)
	})
	if err != nil {
		if envelope.KindOf(err) == envelope.KindPreconditionFailed && st != nil && st.refused != "" {
			s.tel.PreconditionFailed(ctx, string(st.refused))
		}
		return err
	}
	for _, rev := range st.revs {
		s.tel.Updated(ctx, string(rev.Kind))
	}
	s.emit(ctx, st.revs)
	return nil
}

// Revisions returns the revisions of the record of kind with that ID in
// brandID, oldest first, each naming its actor (a user, or the system);
// empty for a record without any (or of another brand). KindInvalid for an
// empty brand ID.
func (s *Service) Revisions(ctx context.Context, brandID string, kind RecordKind, id string) ([]Revision, error) {
	if err := requireBrand(brandID); err != nil {
		return nil, err
	}
	if id == "" {
		return []Revision{}, nil
	}
	revs, err := s.store.ListRevisions(ctx, RevisionFilter{BrandID: brandID, Kind: kind, RecordID: id})
	if err != nil {
		return nil, err
	}
	if revs == nil {
		revs = []Revision{}
	}
	for i := range revs {
		revs[i].ActorSystem = revs[i].ActorUserID == "" // stores keep the user ID only
	}
	return revs, nil
}

// changes collects the names of changed fields.
type changes []string

func (c *changes) check(name string, changed bool) {
	if changed {
		*c = append(*c, name)
	}
}

func eqPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
