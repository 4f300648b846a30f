// Package storetest is the contract suite of the storage port: every adapter
// runs it, so both behave identically.
package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// NewStore builds a fresh store for one subtest, reading time from clock.
type NewStore func(t *testing.T, clock store.Clock) store.Store

// Run runs the contract suite. Subtests run in parallel and use unique
// partition keys, so adapters may share tables between them.
func Run(t *testing.T, newStore NewStore) {
	t.Run("Basics", func(t *testing.T) { runBasics(t, newStore) })
	t.Run("Add", func(t *testing.T) { runAdd(t, newStore) })
	t.Run("Transactions", func(t *testing.T) { runTransactions(t, newStore) })
	t.Run("Query", func(t *testing.T) { runQuery(t, newStore) })
	t.Run("Expiry", func(t *testing.T) { runExpiry(t, newStore) })
	t.Run("Concurrency", func(t *testing.T) { runConcurrency(t, newStore) })
	t.Run("Limits", func(t *testing.T) { runLimits(t, newStore) })
	t.Run("Counters", func(t *testing.T) { runCounters(t, newStore) })
	t.Run("Parity", func(t *testing.T) { runParity(t, newStore) })
	t.Run("GetMany", func(t *testing.T) { runGetMany(t, newStore) })
	t.Run("Bodies", func(t *testing.T) { runBodies(t, newStore) })
	t.Run("Extras", func(t *testing.T) { runExtras(t, newStore) })
}

// Clock is a manual clock for expiry tests.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts a clock at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now reads the clock; pass c.Now as a store.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is one subtest's store and key space.
type fixture struct {
	t     *testing.T
	s     store.Store
	clock *Clock
	pk    string
	ctx   context.Context
}

// setup starts a parallel subtest with its own store and a unique PK.
func setup(t *testing.T, newStore NewStore) *fixture {
	t.Helper()
	t.Parallel()
	clock := NewClock(time.Now())
	s := newStore(t, clock.Now)
	t.Cleanup(func() { _ = s.Close() })
	pk := fmt.Sprintf("%s#%08x", strings.ReplaceAll(t.Name(), "/", "."), rand.Uint32())
	return &fixture{t: t, s: s, clock: clock, pk: pk, ctx: context.Background()}
}

// key addresses sk in the fixture's partition of table (accounts when empty).
func (f *fixture) key(sk string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: f.pk, SK: sk}
}

// otherKey is in a second partition, for ops that must not collide.
func (f *fixture) otherKey(sk string) store.Key {
	return store.Key{Table: store.TableLedger, PK: f.pk + "-other", SK: sk}
}

func (f *fixture) write(ops ...store.Op) error { return f.s.Write(f.ctx, ops...) }

func (f *fixture) get(k store.Key) (store.Item, error) { return f.s.Get(f.ctx, k) }

func (f *fixture) query(q store.Query) (store.Page, error) {
	if q.Table == "" {
		q.Table = store.TableAccounts
	}
	if q.PK == "" {
		q.PK = f.pk
	}
	return f.s.Query(f.ctx, q)
}

// seconds is a whole-second time, as expiries are stored.
func seconds(t time.Time) time.Time { return time.Unix(t.Unix(), 0) }
