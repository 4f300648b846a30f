package orders

import (
	"sync"
	"time"

	"github.com/paygate/paygate/shared/gate/prepaid"
)

// balanceCache remembers, per instance, each balance as this instance's last
// order left it (amount and store version), so a warm order needs no balance
// read. It is only a guess: the debit is conditioned on the version, and a
// stale guess fails that condition, which returns the balance as it is now
// (no extra read) for the retry. A guess never refuses an order: a cached
// balance too low for the charge is read again first.
type balanceCache struct {
	mu sync.Mutex
	m  map[string]cachedBalance
}

type cachedBalance struct {
	b       prepaid.Balance
	expires time.Time
	// era counts the breaks of this balance's pipelined chain (see broken).
	era int64
}

const (
	balanceTTL        = 30 * time.Second
	maxCachedBalances = 10_000
)

func balanceKey(accountID, currency string) string { return accountID + "|" + currency }

func (c *balanceCache) get(accountID, currency string) (prepaid.Balance, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[balanceKey(accountID, currency)]
	if !ok || time.Now().After(e.expires) {
		return prepaid.Balance{}, false
	}
	return e.b, true
}

func (c *balanceCache) put(accountID, currency string, b prepaid.Balance) {
	if b.Version <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedBalances {
		c.m = map[string]cachedBalance{}
	}
	k := balanceKey(accountID, currency)
	c.m[k] = cachedBalance{b: b, expires: time.Now().Add(balanceTTL), era: c.m[k].era}
}

// era is the balance's chain era now (0 when not cached).
func (c *balanceCache) era(accountID, currency string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[balanceKey(accountID, currency)].era
}

// broken settles what a pipelined order whose write failed its version
// condition builds on next (under the balance lock again). The cache then
// holds the prediction of the last order handed over, which may be one of
// those built on the failed write (failing too) or one handed over since.
// The first order to report a break of the era its write was built in
// starts a new era on the balance as the store returned it (fresh, not a
// guess); a later one of the same era finds the new era's prediction and
// builds on it (a guess, checked by its own version condition).
func (c *balanceCache) broken(accountID, currency string, era int64, fresh prepaid.Balance) (_ prepaid.Balance, guessed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := balanceKey(accountID, currency)
	e, ok := c.m[k]
	if ok && e.era != era && time.Now().Before(e.expires) && e.b.Version > fresh.Version {
		return e.b, true
	}
	if c.m == nil || len(c.m) >= maxCachedBalances {
		c.m = map[string]cachedBalance{}
	}
	c.m[k] = cachedBalance{b: fresh, expires: time.Now().Add(balanceTTL), era: max(e.era, era) + 1}
	return fresh, false
}
