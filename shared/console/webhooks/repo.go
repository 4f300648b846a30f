package webhooks

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Key layout (all in the accounts table, beside the account they belong to):
//
//	whep#<account>       / <endpoint id>  an endpoint (ids are time-ordered: a
//	                                      query lists them newest first)
//	whepcount#<account>  / n              N = how many endpoints the account
//	                                      holds, bounded by MaxEndpoints in the
//	                                      same transaction as each create
//
// Events are read from the event log (shared/domain/eventlog), which every area
// that changes state writes.

func endpointPK(accountID string) string { return "whep#" + accountID }

func countPK(accountID string) string { return "whepcount#" + accountID }

// EndpointKey addresses one endpoint of an account.
func EndpointKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: endpointPK(accountID), SK: id}
}

func countKey(accountID string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: countPK(accountID), SK: "n"}
}

func decodeEndpoint(it store.Item) (*Endpoint, error) {
	var e Endpoint
	if err := json.Unmarshal(it.Data, &e); err != nil {
		return nil, apierr.Wrap("webhooks.decodeEndpoint", apierr.Internal, err)
	}
	e.version = it.Version
	return &e, nil
}

// putOp writes e: a new record only if absent, else at the version it was read.
// Its secrets are stored sealed (s.box): a new or rolled one, or one read in
// clear from a record of before sealing, is sealed here; one read sealed is
// written back as it was.
func (s *Service) putOp(ctx context.Context, e *Endpoint) (store.Op, error) {
	stored := *e
	var err error
	for _, f := range []*string{&stored.Secret, &stored.PrevSecret} {
		if *f != "" && !secretbox.IsSealed(*f) {
			if *f, err = s.box.Seal(ctx, []byte(*f)); err != nil {
				return store.Op{}, apierr.Wrap("webhooks.putOp", apierr.Unavailable, err)
			}
		}
	}
	data, err := json.Marshal(&stored)
	if err != nil {
		return store.Op{}, apierr.Wrap("webhooks.putOp", apierr.Internal, err)
	}
	cond := store.IfAbsent
	if e.version > 0 {
		cond = store.IfVersion(e.version)
	}
	return store.Put(store.Item{Key: EndpointKey(e.AccountID, e.ID), Data: data}, cond), nil
}

// Opened is e with its secrets opened, for signing (the sender): the
// endpoints the service reads hold them as stored, sealed (or in clear, from
// before sealing). Errors: Internal (a secret that cannot be opened),
// Unavailable.
func (s *Service) Opened(ctx context.Context, e *Endpoint) (*Endpoint, error) {
	out := *e
	for _, f := range []*string{&out.Secret, &out.PrevSecret} {
		if !secretbox.IsSealed(*f) {
			continue
		}
		pt, err := s.box.Open(ctx, *f)
		if err != nil {
			kind := apierr.Unavailable
			if errors.Is(err, secretbox.ErrUnopenable) {
				kind = apierr.Internal
			}
			return nil, apierr.Wrap("webhooks.Opened", kind, err)
		}
		*f = string(pt)
	}
	return &out, nil
}
