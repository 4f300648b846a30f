package beneficiaries

import (
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Key layout (table ledger, beside the books of shared/domain/ledger, whose
// beneficiary balances are mbal#<account>#<beneficiary id>):
//
//   - ben#<account> / <beneficiary id>: a beneficiary (UUIDv7: newest first
//     by a descending query).
//   - spo#<account> / <payment order id>: a settlement payment order.
//   - sporeq#<account> / <request_id>: the payment order a request_id made
//     (put-if-absent in the order's transaction: one order per request_id).
//   - spoopen#<shard> / <created>#<account>#<id>: payment orders not decided
//     yet (orderOpen, a dueindex.Index keyed by when each was made), put
//     with the order and removed by the write that decides it; the
//     settlement task re-queues the old ones (a message lost after commit).
//   - sbxbank#<payment order id> / result: the sandbox bank's own record of
//     an order it answered (a fake of a system outside the service).
//   - dist#<account> / <distribution id>: a distribution, its lines and how
//     many chunks of them are credited.
//   - distopen#<shard> / <created>#<account>#<id>: distributions whose later
//     chunks are not all credited (distOpen, a dueindex.Index keyed by when
//     each was made); removed by the last chunk's write; the settlement task
//     resumes the old ones (a process that died between chunks).
//
// Entries of the two open indexes written before the one due-time index
// have the same keys and the account and id in their data; the index reads
// both.
func beneficiaryPK(accountID string) string { return "ben#" + accountID }

func beneficiaryKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: beneficiaryPK(accountID), SK: id}
}

func orderPK(accountID string) string { return "spo#" + accountID }

func orderKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: orderPK(accountID), SK: id}
}

func requestPK(accountID string) string { return "sporeq#" + accountID }

func requestKey(accountID, requestID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: requestPK(accountID), SK: requestID}
}

func distributionPK(accountID string) string { return "dist#" + accountID }

func distributionKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: distributionPK(accountID), SK: id}
}

// The open indexes.
var (
	orderOpen = dueindex.Index{Table: store.TableLedger, Prefix: "spoopen#"}
	distOpen  = dueindex.Index{Table: store.TableLedger, Prefix: "distopen#"}
)
