package webhooks

import (
	"encoding/json"

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
func (e *Endpoint) putOp() (store.Op, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return store.Op{}, apierr.Wrap("webhooks.putOp", apierr.Internal, err)
	}
	cond := store.IfAbsent
	if e.version > 0 {
		cond = store.IfVersion(e.version)
	}
	return store.Put(store.Item{Key: EndpointKey(e.AccountID, e.ID), Data: data}, cond), nil
}
