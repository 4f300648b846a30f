package payments

import (
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
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
//   - PK "payexp2#<shard>", SK "<expiry>#<account>#<payment id>" (a
//     dueindex, ExpiryIndex): the authorisations that hold funds, by the
//     time they expire (AuthorizationTTL after authorisation); put when a
//     payment becomes authorised, deleted by the move that leaves
//     authorised (capture, cancel, expiry). The expirer reads the due
//     entries of every shard, and of "payexp#<shard>", where entries were
//     written (expiry as 2006-01-02T15:04:05.000000000Z) before the one
//     due-time layout.
//
// Entries hold no data: readers Get the record by the id in the SK.

// ExpiryIndex holds the authorisations that hold funds, by their expiry.
var ExpiryIndex = dueindex.Index{Table: store.TablePayments, Prefix: "payexp2#",
	Legacy: &dueindex.Legacy{Prefix: "payexp#", TimeLayout: "2006-01-02T15:04:05.000000000Z"}}

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
		ops = append(ops, ExpiryIndex.Put(p.AccountID, p.ID, p.ExpiresAt()))
	case was && !is:
		ops = append(ops, ExpiryIndex.Delete(p.AccountID, p.ID, p.ExpiresAt()))
	}
	return ops
}
