package webhooks

import (
	"context"
	"errors"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"
	"github.com/paygate/paygate/shared/console/webhooks/outbound"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Service manages webhook endpoints and reads events. It takes typed input
// and returns public types or apierr errors; only routes.go knows HTTP.
type Service struct {
	st    store.Store
	clock func() time.Time
	q     queue.Queue   // the webhooks queue, for resend (WithQueue)
	box   secretbox.Box // seals the signing secrets (WithSecrets)
	// env is the function's ENVIRONMENT (WithEnvironment); "" counts as
	// local, where test endpoints may target loopback.
	env string
}

// New builds the service over st. Its secrets are sealed with the process's
// in-memory key until WithSecrets (tests, tools; the builders pass
// app.Deps.Secrets).
func New(st store.Store, clock func() time.Time) *Service {
	if clock == nil {
		clock = time.Now
	}
	return &Service{st: st, clock: clock, box: secretbox.New(filekeys.Memory(), clock)}
}

// WithSecrets seals and opens the endpoints' signing secrets with box.
func (s *Service) WithSecrets(box secretbox.Box) *Service {
	s.box = box
	return s
}

func (s *Service) now() time.Time { return s.clock().UTC() }

// WithEnvironment gives the service the function's environment
// (app.Config.Environment), which decides whether test endpoints may target
// loopback (outbound.PolicyFor): only where it is "local" or unset.
func (s *Service) WithEnvironment(env string) *Service {
	c := *s
	c.env = env
	return &c
}

// policy is what c's key may register and be delivered to here.
func (s *Service) policy(live bool) outbound.Policy { return outbound.PolicyFor(live, s.env) }

// Caller is who acts: the account and whether its key is live (live keys
// register https URLs on public addresses only).
type Caller struct {
	AccountID string
	Live      bool
}

// CreateInput is a new endpoint.
type CreateInput struct {
	URL           string
	EnabledEvents []string
	APIVersion    string
	Description   string
	Metadata      map[string]string
	// Format is FormatPaygate ("" too) or FormatAdyen.
	Format string
	Idem   *idempotency.Call
}

func checkURL(raw string, p outbound.Policy) error {
	if _, err := outbound.CheckURL(raw, p); err != nil {
		return apierr.New(CodeURLInvalid, "url refused: %s", err.Error())
	}
	return nil
}

// checkEvents validates enabled_events: at least one, each a catalogue type
// (for an Adyen-format endpoint, one Adyen has a code for), or exactly
// ["*"]. Duplicates are dropped, order kept.
func checkEvents(evs []string, format string) ([]string, error) {
	if len(evs) == 0 {
		return nil, apierr.Invalidf("enabled_events", "enabled_events must list at least one event type, or \"*\"")
	}
	if len(evs) > MaxEnabledEvents {
		return nil, apierr.Invalidf("enabled_events", "enabled_events takes at most %d entries", MaxEnabledEvents)
	}
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		if ev == Wildcard {
			if len(evs) != 1 {
				return nil, apierr.Invalidf("enabled_events", "\"*\" subscribes to every event and stands alone")
			}
		} else if !eventlog.Known(ev) {
			return nil, apierr.New(CodeEventTypeUnknown, "unknown event type %q; known types: %v", ev, eventlog.Types()).WithParam("enabled_events")
		} else if format == FormatAdyen && !adyennotify.Delivers(ev) {
			return nil, apierr.New(CodeEventTypeNotInFormat, "event type %q has no Adyen notification; an adyen-format endpoint takes %v, or \"*\" for all of them", ev, adyennotify.Types)
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

// checkFormat validates format, and that an Adyen-format endpoint names no
// api_version (Adyen's notifications have none).
func checkFormat(f, apiVersion string) error {
	switch f {
	case "", FormatPaygate:
		return nil
	case FormatAdyen:
		if apiVersion != "" {
			return apierr.Invalidf("api_version", "api_version does not apply to an adyen-format endpoint: Adyen's notifications have no versions")
		}
		return nil
	}
	return apierr.Invalidf("format", "format must be %s or %s", FormatPaygate, FormatAdyen)
}

func checkVersion(v string) error {
	if v != "" && !version.Known(v) {
		return apierr.Invalidf("api_version", "api_version must be one of %s", version.List())
	}
	return nil
}

func checkDescription(d string) error {
	if utf8.RuneCountInString(d) > MaxDescriptionLen {
		return apierr.Invalidf("description", "description must be at most %d characters", MaxDescriptionLen)
	}
	return nil
}

// LimitReached is the 400 for a create past MaxEndpoints.
func LimitReached() error {
	return apierr.New(CodeEndpointLimit,
		"an account holds at most %d webhook endpoints; delete one first", MaxEndpoints)
}

// Create registers an endpoint and returns it with its secret (the only
// time the secret is shown, apart from a replay of the same key). One
// transaction writes the endpoint, the account's endpoint count (bounded by
// the store at MaxEndpoints, so concurrent creates cannot pass it) and a
// keyed call's record. Errors: Invalid (bad input, url_invalid,
// event_type_unknown, webhook_endpoint_limit), Conflict (key in flight),
// IdempotencyMismatch, Unavailable; a *idempotency.Replayed.
func (s *Service) Create(ctx context.Context, c Caller, in CreateInput) (*WithSecret, error) {
	if err := checkURL(in.URL, s.policy(c.Live)); err != nil {
		return nil, err
	}
	if err := checkFormat(in.Format, in.APIVersion); err != nil {
		return nil, err
	}
	evs, err := checkEvents(in.EnabledEvents, in.Format)
	if err != nil {
		return nil, err
	}
	if err := firstErr(checkVersion(in.APIVersion), checkDescription(in.Description), metadata.Check(in.Metadata)); err != nil {
		return nil, err
	}
	now := s.now()
	md := in.Metadata
	if md == nil {
		md = map[string]string{}
	}
	e := &Endpoint{
		ID: ids.Prefixed("we"), AccountID: c.AccountID, URL: in.URL, EnabledEvents: evs, APIVersion: in.APIVersion,
		Description: in.Description, Metadata: md, Livemode: c.Live, Secret: newSecret(), CreatedAt: now, UpdatedAt: now,
	}
	if in.Format == FormatAdyen {
		e.Format, e.Secret = FormatAdyen, adyennotify.NewKey()
	}
	put, err := s.putOp(ctx, e)
	if err != nil {
		return nil, err
	}
	count := store.Add(countKey(c.AccountID), 1, false, store.Always)
	count.Max = MaxEndpoints
	out := e.withSecret()
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindEndpoint, Value: out}, count, put)
	switch {
	case err == nil:
		return out, nil
	case idempotency.FromKey(err):
		return nil, err
	case errors.Is(err, store.ErrOutOfRange):
		return nil, LimitReached()
	}
	return nil, apierr.Wrap("webhooks.Create", apierr.Unavailable, err)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Get reads one of the account's endpoints; another account's, or a
// malformed id, is NotFound. Errors: NotFound, Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Endpoint, error) {
	if !ids.ValidPrefixed("we", id) {
		return nil, notFound(id)
	}
	it, err := s.st.Get(ctx, EndpointKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, apierr.Wrap("webhooks.Get", apierr.Unavailable, err)
	}
	return decodeEndpoint(it)
}

func notFound(id string) error {
	return apierr.NotFoundf("no such webhook endpoint: %s", id)
}

// List pages the account's endpoints, newest first. Errors: Unavailable,
// Internal, Invalid (a bad cursor).
func (s *Service) List(ctx context.Context, accountID string, limit int, cursor string) ([]View, string, error) {
	q := store.Query{Table: store.TableAccounts, PK: endpointPK(accountID), Desc: true, Cursor: cursor}
	return listing.Collect(ctx, s.st, q, limit, listing.DefaultBudget, func(it store.Item) (View, bool, error) {
		e, err := decodeEndpoint(it)
		if err != nil {
			return View{}, false, err
		}
		return e.View(), true, nil
	})
}

// UpdateInput changes an endpoint; nil fields stay as they are. Metadata,
// when given, replaces the whole map.
type UpdateInput struct {
	ID            string
	URL           *string
	EnabledEvents []string // nil: unchanged
	APIVersion    *string  // "" goes back to the account's default
	Description   *string
	Metadata      map[string]string
	Disabled      *bool
}

// updateAttempts bounds retries when a concurrent change moved the version
// between the read and the conditional write.
const updateAttempts = 3

// Update applies in to the endpoint and returns its view. Re-enabling clears
// the pipeline's disabled_reason. Errors: Invalid, NotFound, Conflict (lost
// updateAttempts races), Unavailable, Internal.
func (s *Service) Update(ctx context.Context, c Caller, in UpdateInput) (*View, error) {
	if in.URL != nil {
		if err := checkURL(*in.URL, s.policy(c.Live)); err != nil {
			return nil, err
		}
	}
	var evs []string
	if in.EnabledEvents != nil {
		var err error
		if evs, err = checkEvents(in.EnabledEvents, ""); err != nil {
			return nil, err
		}
	}
	if in.APIVersion != nil {
		if err := checkVersion(*in.APIVersion); err != nil {
			return nil, err
		}
	}
	if in.Description != nil {
		if err := checkDescription(*in.Description); err != nil {
			return nil, err
		}
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		e, err := s.Get(ctx, c.AccountID, in.ID)
		if err != nil {
			return nil, err
		}
		if err := e.checkUpdate(in); err != nil {
			return nil, err
		}
		if in.URL != nil {
			e.URL = *in.URL
		}
		if evs != nil {
			e.EnabledEvents = evs
		}
		if in.APIVersion != nil {
			e.APIVersion = *in.APIVersion
		}
		if in.Description != nil {
			e.Description = *in.Description
		}
		if in.Metadata != nil {
			e.Metadata = in.Metadata
		}
		if in.Disabled != nil {
			e.Disabled = *in.Disabled
			if !e.Disabled {
				e.DisabledReason, e.FailingSince = "", nil
			}
		}
		e.UpdatedAt = s.now()
		op, err := s.putOp(ctx, e)
		if err != nil {
			return nil, err
		}
		err = s.st.Write(ctx, op)
		if _, ok := store.IsConditionFailed(err); ok && attempt < updateAttempts {
			continue
		}
		if err != nil {
			return nil, changedOr("webhooks.Update", in.ID, err)
		}
		v := e.View()
		return &v, nil
	}
}

// checkUpdate holds the rules of e's format that in must keep.
func (e *Endpoint) checkUpdate(in UpdateInput) error {
	if e.Format != FormatAdyen {
		return nil
	}
	if in.APIVersion != nil {
		if err := checkFormat(e.Format, *in.APIVersion); err != nil {
			return err
		}
	}
	if in.EnabledEvents != nil {
		if _, err := checkEvents(in.EnabledEvents, e.Format); err != nil {
			return err
		}
	}
	return nil
}

func changedOr(op, id string, err error) error {
	if cf, ok := store.IsConditionFailed(err); ok {
		if cf.Current == nil {
			return notFound(id)
		}
		return apierr.New(CodeEndpointChanged, "webhook endpoint %s changed concurrently; retry", id)
	}
	return apierr.Wrap(op, apierr.Unavailable, err)
}

// Delete removes the endpoint and frees its place under MaxEndpoints, in one
// transaction. Errors: NotFound, Conflict, Unavailable, Internal.
func (s *Service) Delete(ctx context.Context, accountID, id string) (*Deleted, error) {
	e, err := s.Get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	err = s.st.Write(ctx,
		store.Delete(EndpointKey(accountID, id), store.IfVersion(e.version)),
		store.Add(countKey(accountID), -1, true, store.Always),
	)
	if err != nil {
		return nil, changedOr("webhooks.Delete", id, err)
	}
	return &Deleted{ID: id, Object: "webhook_endpoint", Deleted: true}, nil
}

// RollInput rolls an endpoint's secret.
type RollInput struct {
	ID string
	// ExpireOldAfter is how long the old secret keeps signing beside the new
	// one (nil: DefaultExpireOld; 0: stops at once).
	ExpireOldAfter *time.Duration
	Idem           *idempotency.Call
}

// RollSecret gives the endpoint a new secret and returns it (shown this
// once). The old one keeps signing until ExpireOldAfter has passed; a secret
// rolled out earlier and still in its window is dropped. Errors: Invalid,
// NotFound, Conflict (a concurrent change, or the key in flight),
// IdempotencyMismatch, Unavailable, Internal; a *idempotency.Replayed.
func (s *Service) RollSecret(ctx context.Context, c Caller, in RollInput) (*WithSecret, error) {
	keep := DefaultExpireOld
	if in.ExpireOldAfter != nil {
		keep = *in.ExpireOldAfter
	}
	if keep < 0 || keep > MaxExpireOld {
		return nil, apierr.Invalidf("expire_old_after", "expire_old_after must be 0 to %d seconds", int(MaxExpireOld/time.Second))
	}
	e, err := s.Get(ctx, c.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	exp := now.Add(keep)
	e.PrevSecret, e.PrevExpiresAt = e.Secret, &exp
	e.Secret = newSecret()
	if e.Format == FormatAdyen {
		e.Secret = adyennotify.NewKey()
	}
	e.UpdatedAt = now
	op, err := s.putOp(ctx, e)
	if err != nil {
		return nil, err
	}
	out := e.withSecret()
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: KindEndpoint, Value: out}, op)
	if err == nil {
		return out, nil
	}
	if idempotency.FromKey(err) {
		return nil, err
	}
	return nil, changedOr("webhooks.RollSecret", in.ID, err)
}

// Subscribers are the account's endpoints that take events of type typ now
// (enabled, and subscribed to typ or "*"), secrets included: what the
// delivery pipeline fans an event out to. One Query: an account holds at
// most MaxEndpoints. Errors: Unavailable, Internal.
func (s *Service) Subscribers(ctx context.Context, accountID, typ string) ([]Endpoint, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TableAccounts, PK: endpointPK(accountID), Limit: MaxEndpoints + 1})
	if err != nil {
		return nil, apierr.Wrap("webhooks.Subscribers", apierr.Unavailable, err)
	}
	var out []Endpoint
	for _, it := range page.Items {
		e, err := decodeEndpoint(it)
		if err != nil {
			return nil, err
		}
		if e.Subscribed(typ) {
			out = append(out, *e)
		}
	}
	return out, nil
}
