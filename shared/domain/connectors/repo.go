package connectors

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// A connector's record: the remote card processor an account uses in one
// mode (the admin CLI's `connectors set`). Its API key and HMAC key are
// stored sealed (secretbox); the rest is configuration, not secret.
//
// Key layout (the accounts table, beside the account):
//
//	conns#<account>    / <connector id>  the record (every connector the
//	                                     account ever had: a replaced or
//	                                     removed one still captures and
//	                                     refunds the payments it authorised)
//	connid#<id>        / a               the account of a connector id (the
//	                                     notification route has only the id)
//	connmode#<account> / <mode>          the id of the account's connector
//	                                     for the mode (one per mode)

// Kinds of connector: the providers a connector can speak to.
const KindAdyen = "adyen"

// Kinds are the known kinds.
var Kinds = []string{KindAdyen}

// Modes of a connector: which keys' payments it serves.
const (
	ModeTest = "test"
	ModeLive = "live"
)

// ModeOf is the connector mode of livemode.
func ModeOf(livemode bool) string {
	if livemode {
		return ModeLive
	}
	return ModeTest
}

// IDPrefix starts every connector id.
const IDPrefix = "conn"

// Connector is one connector's configuration, without its secrets.
type Connector struct {
	ID              string    `json:"id"`
	Account         string    `json:"account"`
	Kind            string    `json:"kind"`
	Mode            string    `json:"mode"`
	URL             string    `json:"url"`
	MerchantAccount string    `json:"merchant_account"`
	CreatedAt       time.Time `json:"created_at"`
	// EncryptionKey is the provider's client-side encryption public key (a
	// JWK, as JSON): not a secret. Empty: card fields go as raw fields.
	EncryptionKey string `json:"encryption_key,omitempty"`
	// RemovedAt is when it stopped serving new payments: removed, or
	// replaced by ReplacedBy.
	RemovedAt  *time.Time `json:"removed_at,omitempty"`
	ReplacedBy string     `json:"replaced_by,omitempty"`
}

// Removed reports whether c no longer takes new payments.
func (c Connector) Removed() bool { return c.RemovedAt != nil }

// Keys are a connector's secrets.
type Keys struct {
	APIKey  string // sent to the provider on every call
	HMACKey string // checks the provider's notifications
}

// record is a connector as stored: its keys sealed.
type record struct {
	Connector
	APIKey  string `json:"api_key_sealed"`
	HMACKey string `json:"hmac_key_sealed"`
}

type pointer struct {
	Account string `json:"account,omitempty"`
	ID      string `json:"id,omitempty"`
}

func recordKey(account, id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "conns#" + account, SK: id}
}

func idKey(id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "connid#" + id, SK: "a"}
}

func modeKey(account, mode string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "connmode#" + account, SK: mode}
}

// Repo keeps the connectors in the store, their keys sealed by a box.
type Repo struct {
	st    store.Store
	box   secretbox.Box
	clock func() time.Time
}

// NewRepo is the connectors of st, their keys sealed by box; nil clock
// means time.Now.
func NewRepo(st store.Store, box secretbox.Box, clock func() time.Time) *Repo {
	if clock == nil {
		clock = time.Now
	}
	return &Repo{st: st, box: box, clock: clock}
}

// ValidURL checks a connector's URL: https, or http on a loopback host (a
// local gateway playing the provider).
func ValidURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return apierr.Invalidf("url", "url must be an absolute https URL without credentials, query or fragment, such as https://checkout-test.adyen.com/v71")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if loopback(u.Hostname()) {
			return nil
		}
	}
	return apierr.Invalidf("url", "url must be https (http only for a loopback host: 127.0.0.1, localhost, ::1)")
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validate checks c's configuration and keys.
func validate(c Connector, k Keys) error {
	switch {
	case strings.TrimSpace(c.Account) == "":
		return apierr.Missing("account")
	case !slices.Contains(Kinds, c.Kind):
		return apierr.Invalidf("kind", "kind must be one of %v", Kinds)
	case c.Mode != ModeTest && c.Mode != ModeLive:
		return apierr.Invalidf("mode", "mode must be test or live")
	case strings.TrimSpace(c.MerchantAccount) == "":
		return apierr.Missing("merchant_account")
	case k.APIKey == "":
		return apierr.Missing("api_key")
	case k.HMACKey == "":
		return apierr.Missing("hmac_key")
	}
	if err := ValidURL(c.URL); err != nil {
		return err
	}
	if c.EncryptionKey != "" {
		var jwk map[string]any
		if json.Unmarshal([]byte(c.EncryptionKey), &jwk) != nil || jwk["kty"] == nil {
			return apierr.Invalidf("encryption_key", "encryption_key must be a JWK: a JSON object with kty")
		}
	}
	return nil
}

// Set makes c (its ID and CreatedAt are made here) the account's connector
// for c.Mode, with keys sealed. A connector the account had for that mode is
// kept, marked replaced: the payments it authorised still reach it.
func (r *Repo) Set(ctx context.Context, c Connector, k Keys) (Connector, error) {
	c.URL = strings.TrimSuffix(c.URL, "/")
	if err := validate(c, k); err != nil {
		return Connector{}, err
	}
	c.ID, c.CreatedAt, c.RemovedAt, c.ReplacedBy = ids.Prefixed(IDPrefix), r.clock().UTC(), nil, ""
	rec := record{Connector: c}
	var err error
	if rec.APIKey, err = r.box.Seal(ctx, []byte(k.APIKey)); err != nil {
		return Connector{}, apierr.Wrap("connectors.Set", apierr.Unavailable, err)
	}
	if rec.HMACKey, err = r.box.Seal(ctx, []byte(k.HMACKey)); err != nil {
		return Connector{}, apierr.Wrap("connectors.Set", apierr.Unavailable, err)
	}
	for attempt := 0; ; attempt++ {
		ops, err := r.setOps(ctx, rec)
		if err != nil {
			return Connector{}, err
		}
		err = r.st.Write(ctx, ops...)
		if _, lost := store.IsConditionFailed(err); lost && attempt < 3 {
			continue // another set or remove of this mode won: build on it
		}
		if err != nil {
			return Connector{}, apierr.Wrap("connectors.Set", apierr.Unavailable, err)
		}
		return c, nil
	}
}

// setOps writes rec and points its account's mode at it, retiring the
// record the mode pointed at.
func (r *Repo) setOps(ctx context.Context, rec record) ([]store.Op, error) {
	c := rec.Connector
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, apierr.Wrap("connectors.Set", apierr.Internal, err)
	}
	ptr, _ := json.Marshal(pointer{Account: c.Account})
	mode, _ := json.Marshal(pointer{ID: c.ID})
	ops := []store.Op{
		store.Put(store.Item{Key: recordKey(c.Account, c.ID), Data: data}, store.IfAbsent),
		store.Put(store.Item{Key: idKey(c.ID), Data: ptr}, store.IfAbsent),
	}
	old, oldVersion, err := r.current(ctx, c.Account, c.Mode)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return append(ops, store.Put(store.Item{Key: modeKey(c.Account, c.Mode), Data: mode}, store.IfAbsent)), nil
	}
	ops = append(ops, store.Put(store.Item{Key: modeKey(c.Account, c.Mode), Data: mode}, store.IfVersion(oldVersion)))
	retire, err := r.retireOp(ctx, old.ID, c.Account, c.ID)
	if err != nil {
		return nil, err
	}
	return append(ops, retire), nil
}

// current is the record the account's mode points at (nil: none) and the
// pointer's version.
func (r *Repo) current(ctx context.Context, account, mode string) (*record, int64, error) {
	it, err := r.st.Get(ctx, modeKey(account, mode))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, apierr.Wrap("connectors.current", apierr.Unavailable, err)
	}
	var p pointer
	if err := json.Unmarshal(it.Data, &p); err != nil {
		return nil, 0, apierr.Wrap("connectors.current", apierr.Internal, err)
	}
	rec, _, err := r.get(ctx, account, p.ID)
	if err != nil {
		return nil, 0, err
	}
	return rec, it.Version, nil
}

// retireOp marks the record id of account removed (replacedBy: the
// connector that took its place), at the version read.
func (r *Repo) retireOp(ctx context.Context, id, account, replacedBy string) (store.Op, error) {
	rec, version, err := r.get(ctx, account, id)
	if err != nil {
		return store.Op{}, err
	}
	if rec.RemovedAt == nil {
		now := r.clock().UTC()
		rec.RemovedAt = &now
	}
	rec.ReplacedBy = replacedBy
	data, err := json.Marshal(rec)
	if err != nil {
		return store.Op{}, apierr.Wrap("connectors.retire", apierr.Internal, err)
	}
	return store.Put(store.Item{Key: recordKey(account, id), Data: data}, store.IfVersion(version)), nil
}

func (r *Repo) get(ctx context.Context, account, id string) (*record, int64, error) {
	if !ids.ValidPrefixed(IDPrefix, id) {
		return nil, 0, apierr.NotFoundf("no connector %s", id)
	}
	it, err := r.st.Get(ctx, recordKey(account, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, apierr.NotFoundf("no connector %s", id)
	}
	if err != nil {
		return nil, 0, apierr.Wrap("connectors.get", apierr.Unavailable, err)
	}
	var rec record
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return nil, 0, apierr.Wrap("connectors.get", apierr.Internal, err)
	}
	return &rec, it.Version, nil
}

// Get is account's connector id, current, replaced or removed: NotFound
// when the account never had it.
func (r *Repo) Get(ctx context.Context, account, id string) (Connector, error) {
	rec, _, err := r.get(ctx, account, id)
	if err != nil {
		return Connector{}, err
	}
	return rec.Connector, nil
}

// Opened is account's connector id with its keys opened.
func (r *Repo) Opened(ctx context.Context, account, id string) (Connector, Keys, error) {
	rec, _, err := r.get(ctx, account, id)
	if err != nil {
		return Connector{}, Keys{}, err
	}
	k, err := r.open(ctx, rec)
	return rec.Connector, k, err
}

// OpenedFor is the account's connector for mode with its keys opened; ok is
// false when the account has none.
func (r *Repo) OpenedFor(ctx context.Context, account, mode string) (c Connector, k Keys, ok bool, err error) {
	rec, _, err := r.current(ctx, account, mode)
	if err != nil || rec == nil {
		return Connector{}, Keys{}, false, err
	}
	k, err = r.open(ctx, rec)
	return rec.Connector, k, err == nil, err
}

func (r *Repo) open(ctx context.Context, rec *record) (Keys, error) {
	var k Keys
	for _, f := range []struct {
		sealed string
		into   *string
	}{{rec.APIKey, &k.APIKey}, {rec.HMACKey, &k.HMACKey}} {
		pt, err := r.box.Open(ctx, f.sealed)
		if err != nil {
			kind := apierr.Unavailable
			if errors.Is(err, secretbox.ErrUnopenable) {
				kind = apierr.Internal
			}
			return Keys{}, apierr.Wrap("connectors.open", kind, err)
		}
		*f.into = string(pt)
	}
	return k, nil
}

// AccountOf is the account of connector id: NotFound when there is no
// such connector.
func (r *Repo) AccountOf(ctx context.Context, id string) (string, error) {
	if !ids.ValidPrefixed(IDPrefix, id) {
		return "", apierr.NotFoundf("no connector %s", id)
	}
	it, err := r.st.Get(ctx, idKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return "", apierr.NotFoundf("no connector %s", id)
	}
	if err != nil {
		return "", apierr.Wrap("connectors.AccountOf", apierr.Unavailable, err)
	}
	var p pointer
	if err := json.Unmarshal(it.Data, &p); err != nil || p.Account == "" {
		return "", apierr.Wrap("connectors.AccountOf", apierr.Internal, errors.New("connector pointer without an account"))
	}
	return p.Account, nil
}

// NotificationKey is, for the provider's notifications to connector id
// (the route knows only the id), the connector (its account and mode) and
// the HMAC key that signs them: NotFound when there is no such connector.
// A replaced or removed connector still has its notifications heard (its
// payments' captures and refunds are confirmed after it went).
func (r *Repo) NotificationKey(ctx context.Context, id string) (Connector, string, error) {
	account, err := r.AccountOf(ctx, id)
	if err != nil {
		return Connector{}, "", err
	}
	c, k, err := r.Opened(ctx, account, id)
	if err != nil {
		return Connector{}, "", err
	}
	return c, k.HMACKey, nil
}

// List is every connector account ever had, current first by mode, then
// the others newest first.
func (r *Repo) List(ctx context.Context, account string) ([]Connector, error) {
	var out []Connector
	cursor := ""
	for {
		page, err := r.st.Query(ctx, store.Query{Table: store.TableAccounts, PK: "conns#" + account, Desc: true, Limit: 100, Cursor: cursor})
		if err != nil {
			return nil, apierr.Wrap("connectors.List", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			var rec record
			if err := json.Unmarshal(it.Data, &rec); err != nil {
				return nil, apierr.Wrap("connectors.List", apierr.Internal, err)
			}
			out = append(out, rec.Connector)
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	slices.SortStableFunc(out, func(a, b Connector) int {
		switch {
		case a.Removed() == b.Removed():
			return 0
		case !a.Removed():
			return -1
		}
		return 1
	})
	return out, nil
}

// Remove takes account's connector id out of service: no new payment goes
// to it (its mode has no connector until the next Set); its record stays,
// so the payments it authorised are still captured, refunded and notified
// through it. Removing a removed connector is a no-op.
func (r *Repo) Remove(ctx context.Context, account, id string) (Connector, error) {
	for attempt := 0; ; attempt++ {
		rec, version, err := r.get(ctx, account, id)
		if err != nil {
			return Connector{}, err
		}
		if rec.Removed() {
			return rec.Connector, nil
		}
		now := r.clock().UTC()
		rec.RemovedAt = &now
		data, err := json.Marshal(rec)
		if err != nil {
			return Connector{}, apierr.Wrap("connectors.Remove", apierr.Internal, err)
		}
		ops := []store.Op{store.Put(store.Item{Key: recordKey(account, id), Data: data}, store.IfVersion(version))}
		if it, err := r.st.Get(ctx, modeKey(account, rec.Mode)); err == nil {
			var p pointer
			if json.Unmarshal(it.Data, &p) == nil && p.ID == id {
				ops = append(ops, store.Delete(it.Key, store.IfVersion(it.Version)))
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return Connector{}, apierr.Wrap("connectors.Remove", apierr.Unavailable, err)
		}
		err = r.st.Write(ctx, ops...)
		if _, lost := store.IsConditionFailed(err); lost && attempt < 3 {
			continue
		}
		if err != nil {
			return Connector{}, apierr.Wrap("connectors.Remove", apierr.Unavailable, err)
		}
		return rec.Connector, nil
	}
}
