package orders

import (
	"sync"
	"time"

	"github.com/paygate/paygate/shared/gate/ledger"
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
	b       ledger.Balance
	expires time.Time
}

const (
	balanceTTL        = 30 * time.Second
	maxCachedBalances = 10_000
)

func balanceKey(accountID, currency string) string { return accountID + "|" + currency }

func (c *balanceCache) get(accountID, currency string) (ledger.Balance, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[balanceKey(accountID, currency)]
	if !ok || time.Now().After(e.expires) {
		return ledger.Balance{}, false
	}
	return e.b, true
}

func (c *balanceCache) put(accountID, currency string, b ledger.Balance) {
	if b.Version <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedBalances {
		c.m = map[string]cachedBalance{}
	}
	c.m[balanceKey(accountID, currency)] = cachedBalance{b: b, expires: time.Now().Add(balanceTTL)}
}
