package orders

import (
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/domain/supplier"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store store.Store
	Queue queue.Queue
	Clock func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: discard
	// Test fulfils test orders (test-mode keys, or "test": true), and
	// makes the deliverable of a forced completion. Required: the wiring
	// chooses it (the sandbox supplier).
	Test supplier.TestSupplier
	// Live fulfils the other orders; nil means no live vendor is configured,
	// and such orders fail with reason vendor_unavailable (charge returned).
	Live supplier.Supplier
	// ProductTTL is how long an active product stays in the per-instance
	// cache; 0 disables the cache. Staleness is impossible either way (see
	// productCache).
	ProductTTL time.Duration
	// SerializeBalances makes this process place one order at a time per
	// balance, so a burst of one account's orders in one process (the local
	// gateway) does not race on the balance version. Correctness never
	// depends on it: the store conditions hold across processes.
	SerializeBalances bool
}

// Service places, reads and fulfils orders.
type Service struct {
	st       store.Store
	q        queue.Queue
	clock    func() time.Time
	log      *slog.Logger
	test     supplier.TestSupplier
	live     supplier.Supplier
	ledger   *prepaid.Ledger
	products *productCache
	balances balanceCache
	serial   bool
	locks    [64]sync.Mutex
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Test == nil {
		panic("orders: Config.Test is required")
	}
	return &Service{st: c.Store, q: c.Queue, clock: c.Clock, log: c.Log, test: c.Test, live: c.Live,
		ledger: prepaid.New(c.Store, c.Clock), products: &productCache{st: c.Store, ttl: c.ProductTTL}, serial: c.SerializeBalances}
}

// lockBalance serialises this process's orders on one balance when asked to.
func (s *Service) lockBalance(accountID, currency string) func() {
	if !s.serial {
		return func() {}
	}
	h := fnv.New32a()
	h.Write([]byte(accountID + "|" + currency))
	m := &s.locks[h.Sum32()%uint32(len(s.locks))]
	m.Lock()
	return m.Unlock
}
