package connect

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/providers/adyencheckout"
	"github.com/paygate/paygate/shared/store"
)

// CacheFor is how long a Directory keeps what it read: an account's
// connector for a mode (so a `connectors set` or `remove` reaches every
// function within it) and a connector's processor, its keys opened.
const CacheFor = 30 * time.Second

// maxCached bounds each of a Directory's caches.
const maxCached = 4096

// Builder makes the card processor of a connector of one kind, with its
// keys opened.
type Builder func(c connectors.Connector, k connectors.Keys) (cards.Processor, error)

// Builders are the processors of each connector kind.
var Builders = map[string]Builder{
	connectors.KindAdyen: func(c connectors.Connector, k connectors.Keys) (cards.Processor, error) {
		return adyencheckout.New(adyencheckout.Config{ID: c.ID, Account: c.Account, URL: c.URL,
			MerchantAccount: c.MerchantAccount, APIKey: k.APIKey, EncryptionKey: c.EncryptionKey})
	},
}

// Directory is connectors.Directory over the connectors' records
// (connectors.Repo): each connector's processor is built once (Builders)
// and kept CacheFor, as is which connector an account uses for a mode.
type Directory struct {
	repo     *connectors.Repo
	builders map[string]Builder
	clock    func() time.Time

	mu     sync.Mutex
	byMode map[string]modeEntry // account + "|" + mode
	byID   map[string]idEntry
}

type modeEntry struct {
	id    string // "": none
	until time.Time
}

type idEntry struct {
	account string
	proc    cards.Processor
	until   time.Time
}

var _ connectors.Directory = (*Directory)(nil)

// NewDirectory is the directory of the connectors in st, their keys opened
// with box; builders nil means Builders, clock nil time.Now.
func NewDirectory(st store.Store, box secretbox.Box, clock func() time.Time, builders map[string]Builder) *Directory {
	if clock == nil {
		clock = time.Now
	}
	if builders == nil {
		builders = Builders
	}
	return &Directory{repo: connectors.NewRepo(st, box, clock), builders: builders, clock: clock,
		byMode: map[string]modeEntry{}, byID: map[string]idEntry{}}
}

// CardConnector is account's connector for livemode's mode: "" when none.
func (d *Directory) CardConnector(ctx context.Context, account string, livemode bool) (string, cards.Processor, error) {
	mode := connectors.ModeOf(livemode)
	key := account + "|" + mode
	now := d.clock()
	d.mu.Lock()
	m, ok := d.byMode[key]
	var e idEntry
	var have bool
	if ok && now.Before(m.until) && m.id != "" {
		e, have = d.byID[m.id]
		have = have && now.Before(e.until) && e.account == account
	}
	d.mu.Unlock()
	if ok && now.Before(m.until) {
		if m.id == "" {
			return "", nil, nil
		}
		if have {
			return m.id, e.proc, nil
		}
	}
	c, k, found, err := d.repo.OpenedFor(ctx, account, mode)
	if err != nil {
		return "", nil, err
	}
	if !found {
		d.keepMode(key, "", now)
		return "", nil, nil
	}
	p, err := d.build(c, k, now)
	if err != nil {
		return "", nil, err
	}
	d.keepMode(key, c.ID, now)
	return c.ID, p, nil
}

// CardConnectorByID is account's connector id, current or not: NotFound
// when account never had it (another account's id included).
func (d *Directory) CardConnectorByID(ctx context.Context, account, id string) (cards.Processor, error) {
	now := d.clock()
	d.mu.Lock()
	e, ok := d.byID[id]
	d.mu.Unlock()
	if ok && now.Before(e.until) {
		if e.account != account {
			return nil, apierr.NotFoundf("no connector %s", id)
		}
		return e.proc, nil
	}
	c, k, err := d.repo.Opened(ctx, account, id)
	if err != nil {
		return nil, err
	}
	return d.build(c, k, now)
}

// build makes c's processor and keeps it.
func (d *Directory) build(c connectors.Connector, k connectors.Keys, now time.Time) (cards.Processor, error) {
	b, ok := d.builders[c.Kind]
	if !ok {
		return nil, apierr.Wrap("connect.Directory", apierr.Internal, fmt.Errorf("connector %s is of kind %q, which this build has no adapter for", c.ID, c.Kind))
	}
	p, err := b(c, k)
	if err != nil {
		return nil, apierr.Wrap("connect.Directory", apierr.Internal, fmt.Errorf("connector %s: %w", c.ID, err))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.byID) >= maxCached {
		clear(d.byID)
	}
	d.byID[c.ID] = idEntry{account: c.Account, proc: p, until: now.Add(CacheFor)}
	return p, nil
}

func (d *Directory) keepMode(key, id string, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.byMode) >= maxCached {
		clear(d.byMode)
	}
	d.byMode[key] = modeEntry{id: id, until: now.Add(CacheFor)}
}
