package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Sort-key prefixes of the catalog partition (one per account).
const (
	prefixType     = "type#"
	prefixCategory = "cat#"
	prefixProduct  = "prod#"
)

func partition(accountID string) string { return "cat#" + accountID }

// idKey zero-pads an id so sort keys order numerically.
func idKey(prefix string, id int64) string { return fmt.Sprintf("%s%019d", prefix, id) }

// ProductKey addresses one product of an account's catalog.
func ProductKey(accountID string, id int64) store.Key {
	return store.Key{Table: store.TableCatalog, PK: partition(accountID), SK: idKey(prefixProduct, id)}
}

// Repo reads and loads catalogs.
type Repo struct{ st store.Store }

// NewRepo builds a repo.
func NewRepo(st store.Store) *Repo { return &Repo{st: st} }

// Product reads one product of accountID's catalog, active or not. A missing
// product, or one of another account's catalog, is NotFound.
func (r *Repo) Product(ctx context.Context, accountID string, id int64) (*Product, error) {
	it, err := r.st.Get(ctx, ProductKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such product: %d", id)
	}
	if err != nil {
		return nil, apierr.Wrap("catalog.Product", apierr.Internal, err)
	}
	var p Product
	if err := p.UnmarshalJSON(it.Data); err != nil {
		return nil, apierr.Wrap("catalog.Product", apierr.Internal, err)
	}
	return &p, nil
}

// LoadResult counts what Load changed.
type LoadResult struct {
	Written   int `json:"written"` // items created or changed
	Unchanged int `json:"unchanged"`
	Deleted   int `json:"deleted"` // items no longer in the file
}

// Load makes accountID's catalog equal to f (see Sync).
func (r *Repo) Load(ctx context.Context, accountID string, f *File) error {
	_, err := r.Sync(ctx, accountID, f)
	return err
}

// Sync makes accountID's catalog equal to f and counts the changes: items of the file are written
// when new or changed, items absent from the file are deleted. It writes in
// transactions of at most store.MaxTransactOps, so a load interrupted midway
// leaves a mix; running it again completes it (it is idempotent).
func (r *Repo) Sync(ctx context.Context, accountID string, f *File) (LoadResult, error) {
	want := map[string][]byte{}
	add := func(sk string, v any) error {
		b, err := json.Marshal(v)
		want[sk] = b
		return err
	}
	for _, t := range f.ProductTypes {
		if err := add(idKey(prefixType, t.ID), t); err != nil {
			return LoadResult{}, err
		}
	}
	for _, c := range f.Categories {
		if err := add(idKey(prefixCategory, c.ID), c); err != nil {
			return LoadResult{}, err
		}
	}
	for _, p := range f.Products {
		if err := add(idKey(prefixProduct, p.ID), p); err != nil {
			return LoadResult{}, err
		}
	}
	var res LoadResult
	var ops []store.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		err := r.st.Write(ctx, ops...)
		ops = ops[:0]
		return err
	}
	push := func(op store.Op) error {
		ops = append(ops, op)
		if len(ops) == store.MaxTransactOps {
			return flush()
		}
		return nil
	}
	pk := partition(accountID)
	q := store.Query{Table: store.TableCatalog, PK: pk, Limit: store.MaxQueryLimit}
	for {
		page, err := r.st.Query(ctx, q)
		if err != nil {
			return res, apierr.Wrap("catalog.Load", apierr.Internal, err)
		}
		for _, it := range page.Items {
			b, ok := want[it.SK]
			switch {
			case !ok:
				res.Deleted++
				err = push(store.Delete(it.Key, store.Always))
			case bytes.Equal(b, it.Data):
				res.Unchanged++
			default:
				res.Written++
				err = push(store.Put(store.Item{Key: it.Key, Data: b}, store.Always))
			}
			if err != nil {
				return res, apierr.Wrap("catalog.Load", apierr.Internal, err)
			}
			delete(want, it.SK)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for sk, b := range want {
		res.Written++
		if err := push(store.Put(store.Item{Key: store.Key{Table: store.TableCatalog, PK: pk, SK: sk}, Data: b}, store.Always)); err != nil {
			return res, apierr.Wrap("catalog.Load", apierr.Internal, err)
		}
	}
	if err := flush(); err != nil {
		return res, apierr.Wrap("catalog.Load", apierr.Internal, err)
	}
	return res, nil
}
