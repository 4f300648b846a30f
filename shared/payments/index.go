package payments

import (
	"hash/fnv"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// Index entries live in the payments table beside the records, written in
// the same transaction as the record they point to (SaveOps), so an index
// never names a payment that was not stored, nor misses one that was:
//
//   - PK "payref#<account>#<merchantReference>", SK "<payment id>": every
//     transaction of an order reference (attempts, refunds), for
//     GET /v1/transactions/by-order-reference/{order_reference}.
//   - PK "paylink#<account>#<payment link id>", SK "<payment id>": a payment
//     link's transactions.
//   - PK "paycust#<account>#<customer id>", SK "<payment id>": a customer's
//     transactions (payments and their refunds), for
//     GET /v1/customers/{id}/transactions; written with a new record that
//     has a customer, or by the save of a stored one SetCustomer linked.
//   - PK "payexp#<shard>", SK "<expiry>#<account>#<payment id>": the
//     authorisations that hold funds, by the time they expire
//     (AuthorizationTTL after authorisation); put when a payment becomes
//     authorised, deleted by the move that leaves authorised (capture,
//     cancel, expiry). The expirer reads the due entries of every shard.
//
// Entries hold no data: readers Get the record by the id in the SK.

// ExpiryShards spreads the expiry index over this many partitions.
const ExpiryShards = 8

// expirySKTime sorts lexically in time order (fixed width, UTC).
const expirySKTime = "2006-01-02T15:04:05.000000000Z"

// RefPK is the order-reference index partition of an account's reference.
func RefPK(accountID, ref string) string { return "payref#" + accountID + "#" + ref }

// LinkPK is the payment-link index partition.
func LinkPK(accountID, linkID string) string { return "paylink#" + accountID + "#" + linkID }

// CustomerPK is the customer index partition of an account's customer.
func CustomerPK(accountID, customerID string) string {
	return "paycust#" + accountID + "#" + customerID
}

// SetCustomer ties the payment to a customer. A payment stored before it
// had one (a 3-D Secure payment whose first card token is saved when it
// completes) joins the customer's index with its next save.
func (p *Payment) SetCustomer(customerID string) {
	if p.CustomerID == customerID {
		return
	}
	p.CustomerID = customerID
	p.gainedCust = p.version > 0
}

// ExpiryPK is an expiry index shard's partition.
func ExpiryPK(shard int) string { return "payexp#" + strconv.Itoa(shard) }

// ExpiryShard is the shard of a payment's expiry entry.
func ExpiryShard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % ExpiryShards)
}

// ExpirySKBound is the sort key bound of the entries due at t: every entry
// whose SK is below it has expired by t.
func ExpirySKBound(t time.Time) string { return t.UTC().Format(expirySKTime) + "#~" }

// ExpiryKey is the expiry entry of an authorised payment.
func ExpiryKey(p *Payment) store.Key {
	return store.Key{Table: store.TablePayments, PK: ExpiryPK(ExpiryShard(p.ID)),
		SK: p.ExpiresAt().UTC().Format(expirySKTime) + "#" + p.AccountID + "#" + p.ID}
}

// ParseExpirySK splits an expiry entry's SK into account and payment id.
func ParseExpirySK(sk string) (accountID, id string, ok bool) {
	n := len(expirySKTime)
	if len(sk) < n+3 || sk[n] != '#' {
		return "", "", false
	}
	rest := sk[n+1:]
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == '#' {
			return rest[:i], rest[i+1:], i > 0 && i < len(rest)-1
		}
	}
	return "", "", false
}

// indexOps are the index writes that go with saving p.
func (p *Payment) indexOps() []store.Op {
	var ops []store.Op
	if p.version == 0 {
		if p.MerchantReference != "" {
			ops = append(ops, store.Put(store.Item{Key: store.Key{Table: store.TablePayments, PK: RefPK(p.AccountID, p.MerchantReference), SK: p.ID}, Data: []byte("{}")}, store.Always))
		}
		if p.PaymentLinkID != "" {
			ops = append(ops, store.Put(store.Item{Key: store.Key{Table: store.TablePayments, PK: LinkPK(p.AccountID, p.PaymentLinkID), SK: p.ID}, Data: []byte("{}")}, store.Always))
		}
	}
	if p.CustomerID != "" && (p.version == 0 || p.gainedCust) {
		ops = append(ops, store.Put(store.Item{Key: store.Key{Table: store.TablePayments, PK: CustomerPK(p.AccountID, p.CustomerID), SK: p.ID}, Data: []byte("{}")}, store.Always))
	}
	was, is := p.readStatus == Authorized, p.Status == Authorized
	switch {
	case is && !was:
		ops = append(ops, store.Put(store.Item{Key: ExpiryKey(p), Data: []byte("{}")}, store.Always))
	case was && !is:
		ops = append(ops, store.Delete(ExpiryKey(p), store.Always))
	}
	return ops
}
