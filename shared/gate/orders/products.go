package orders

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// productCache keeps active products per instance so a warm order costs no
// product read. It is never stale where it matters: the order transaction
// checks the product item is still at the cached version (a ConditionCheck in
// the same write call), and a changed product makes the order re-read it.
// Only active products are cached, so every refusal comes from a fresh read.
type productCache struct {
	st  store.Store
	ttl time.Duration

	mu sync.Mutex
	m  map[string]cachedProduct
}

type cachedProduct struct {
	p       *catalog.Product
	version int64
	expires time.Time
}

// maxCachedProducts bounds the cache; when full it starts over.
const maxCachedProducts = 10_000

func cacheKey(accountID string, id int64) string { return accountID + "|" + strconv.FormatInt(id, 10) }

// get returns the product and its store version.
func (c *productCache) get(ctx context.Context, accountID string, id int64) (*catalog.Product, int64, error) {
	k := cacheKey(accountID, id)
	now := time.Now()
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.m[k]
		c.mu.Unlock()
		if ok && now.Before(e.expires) {
			return e.p, e.version, nil
		}
	}
	it, err := c.st.Get(ctx, catalog.ProductKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, apierr.New(CodeProductNotFound, "no such product: %d", id)
	}
	if err != nil {
		return nil, 0, apierr.Wrap("orders.product", apierr.Unavailable, err)
	}
	var p catalog.Product
	if err := p.UnmarshalJSON(it.Data); err != nil {
		return nil, 0, apierr.Wrap("orders.product", apierr.Internal, err)
	}
	if c.ttl > 0 && p.IsActive {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCachedProducts {
			c.m = map[string]cachedProduct{}
		}
		c.m[k] = cachedProduct{p: &p, version: it.Version, expires: now.Add(c.ttl)}
		c.mu.Unlock()
	}
	return &p, it.Version, nil
}

// forget drops a product whose cached version proved stale.
func (c *productCache) forget(accountID string, id int64) {
	c.mu.Lock()
	delete(c.m, cacheKey(accountID, id))
	c.mu.Unlock()
}
