package ledger

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Account is one account of a merchant's books, kept per currency. The
// merchant's own accounts (Pending, Available, Reserved, Disputed), the fees
// it was charged (Fees) and what is held for its split partners (Partner)
// never go below zero: the store refuses the write that would take them
// there. Owed is the one merchant account on the other side of zero: zero
// or negative, it is what disputes took beyond the available balance
// (dispute.go). The external accounts (Processor, PaidOut) are the other
// side of money that enters or leaves the books (Processor goes negative by
// what the captures brought in and refunds did not return, PaidOut positive
// by what payouts took out), so every entry, and the sum of all balances of
// a currency, is zero. The external accounts' balances are derived from the
// entries, not stored (External).
type Account string

const (
	Pending   Account = "pending"   // captured, waiting for the settlement delay
	Available Account = "available" // settled: refunds and payouts take from it
	Reserved  Account = "reserved"  // held for payouts on their way to a card
	Fees      Account = "fees"      // processing fees charged to the merchant
	Processor Account = "processor" // external: the card and wallet processors (captures in, refunds out)
	PaidOut   Account = "paid_out"  // external: what payouts delivered to cards
	Disputed  Account = "disputed"  // held for open disputes: their amounts and fees
	Owed      Account = "owed"      // zero or negative: what disputes took beyond available, recovered from it
	// Distributing holds what a distribution took from available and has not
	// credited to its beneficiaries yet (its later chunks; shared/pay/beneficiaries).
	Distributing Account = "distributing"
	// Bank is external: Kazakhstan's banks (bank invoices paid in, settlement
	// payment orders paid out to beneficiaries' accounts).
	Bank Account = "bank"
)

// A beneficiary (shared/pay/beneficiaries: someone the merchant pays by bank
// transfer) has two accounts of its own per currency: what it holds
// ("beneficiary:<id>": distributions in, transfers to the merchant and
// payment orders out) and what payment orders reserved on their way to its
// bank ("beneficiary_reserved:<id>"). Both never go below zero. Their
// balances live in a partition per beneficiary (BalanceKey), so the
// merchant's own balances stay one small partition however many
// beneficiaries it has.
const (
	beneficiaryPrefix         = "beneficiary:"
	beneficiaryReservedPrefix = "beneficiary_reserved:"
)

// Aggregates are counters the books keep beside the balances they sum (no
// entry posts to them): with every change of a beneficiary account the
// batch adds the same amount to its family's total, so what the merchant's
// beneficiaries hold per currency is one read (GET /v1/distributions/balance),
// and the check derives them from the entries like every other balance.
const (
	BeneficiariesHeld     Account = "beneficiaries"          // the sum of every beneficiary:<id>
	BeneficiariesReserved Account = "beneficiaries_reserved" // the sum of every beneficiary_reserved:<id>
)

// Beneficiary is what the beneficiary id holds.
func Beneficiary(id string) Account { return Account(beneficiaryPrefix + id) }

// BeneficiaryReserved is what payment orders reserved of the beneficiary id.
func BeneficiaryReserved(id string) Account { return Account(beneficiaryReservedPrefix + id) }

// BeneficiaryID is the beneficiary of a beneficiary account, and whether it
// is the reserved one.
func (a Account) BeneficiaryID() (id string, reserved, ok bool) {
	if id, found := strings.CutPrefix(string(a), beneficiaryReservedPrefix); found {
		return id, true, ids.Valid(id)
	}
	if id, found := strings.CutPrefix(string(a), beneficiaryPrefix); found {
		return id, false, ids.Valid(id)
	}
	return "", false, false
}

// Aggregate reports whether a is a total the books keep (never posted).
func (a Account) Aggregate() bool { return a == BeneficiariesHeld || a == BeneficiariesReserved }

// aggregate is the total a beneficiary account counts in.
func (a Account) aggregate() (Account, bool) {
	_, reserved, ok := a.BeneficiaryID()
	switch {
	case !ok:
		return "", false
	case reserved:
		return BeneficiariesReserved, true
	}
	return BeneficiariesHeld, true
}

// partnerPrefix starts a split partner's account: "partner:<reference>".
const partnerPrefix = "partner:"

// MaxPartnerRef is the longest partner reference.
const MaxPartnerRef = 64

// partnerRef is what a partner reference may hold: it becomes part of a
// store key and of the account name, so it is plain ASCII.
var partnerRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// PartnerRefPattern is partnerRef for the OpenAPI document.
const PartnerRefPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`

// ValidPartnerRef reports whether ref may name a split partner.
func ValidPartnerRef(ref string) bool { return partnerRef.MatchString(ref) }

// Partner is the account held for the split partner ref.
func Partner(ref string) Account { return Account(partnerPrefix + ref) }

// PartnerRef is the reference of a partner account.
func (a Account) PartnerRef() (string, bool) {
	ref, ok := strings.CutPrefix(string(a), partnerPrefix)
	return ref, ok && ValidPartnerRef(ref)
}

// External reports whether a is outside the merchant's books (its balance is
// the negative of what came in through it). An external account is posted
// to but keeps no balance counter: nothing decides on its all-time total (a
// reconciliation with a processor's or bank's report sums the entries of
// the report's period), and the counter was a second balance item in every
// capture, refund, payout and bank move's transaction (two write units each).
// Its total, when wanted, is the sum of its postings (Check derives it).
func (a Account) External() bool { return a == Processor || a == PaidOut || a == Bank }

// MayBeNegative reports whether a's balance may go below zero: the external
// accounts, and Owed (a debt, never above zero).
func (a Account) MayBeNegative() bool { return a.External() || a == Owed }

// Merchant reports whether a is one of the merchant's own balances (what
// GET /v1/balance shows).
func (a Account) Merchant() bool {
	return a == Pending || a == Available || a == Reserved || a == Disputed || a == Owed
}

// Valid reports whether a is a known account.
func (a Account) Valid() bool {
	switch a {
	case Pending, Available, Reserved, Fees, Processor, PaidOut, Disputed, Owed, Distributing, Bank:
		return true
	}
	if _, _, ok := a.BeneficiaryID(); ok {
		return true
	}
	_, ok := a.PartnerRef()
	return ok
}

// EntryType says what moved the money; each type has one shape of postings.
type EntryType string

const (
	// EntryCapture: processor -> pending (less the fee, -> fees).
	EntryCapture EntryType = "capture"
	// EntrySettlement: pending -> available, once the settlement delay passed.
	EntrySettlement EntryType = "settlement"
	// EntryRefund: available -> processor.
	EntryRefund EntryType = "refund"
	// EntrySplit: pending -> partner:<ref>..., at capture.
	EntrySplit EntryType = "split"
	// EntrySplitReversal: partner:<ref>... -> available, at a refund.
	EntrySplitReversal EntryType = "split_reversal"
	// EntryPayout: available -> reserved, when a payout is requested.
	EntryPayout EntryType = "payout"
	// EntryPayoutPaid: reserved -> paid_out, when the processor paid it.
	EntryPayoutPaid EntryType = "payout_paid"
	// EntryPayoutFailed: reserved -> available, when the processor refused it.
	EntryPayoutFailed EntryType = "payout_failed"
	// EntryPayoutCancelled: reserved -> available, when the merchant
	// cancelled a payout before it was sent to the processor.
	EntryPayoutCancelled EntryType = "payout_cancelled"
	// EntryDisputeHold: available (owed for what it lacks) -> disputed, when
	// a dispute opens.
	EntryDisputeHold EntryType = "dispute_hold"
	// EntryDisputeRelease: disputed -> owed (what is owed) and available,
	// when a dispute is won.
	EntryDisputeRelease EntryType = "dispute_release"
	// EntryDisputeLoss: disputed -> processor (the amount) and fees (the
	// fee), when a dispute is lost.
	EntryDisputeLoss EntryType = "dispute_loss"
	// EntryDebtRecovery: available -> owed, repaying a negative balance.
	EntryDebtRecovery EntryType = "debt_recovery"
	// EntryDistribution: available -> beneficiary:<id>... (and distributing,
	// when later chunks follow), when a distribution is made.
	EntryDistribution EntryType = "distribution"
	// EntryDistributionCredit: distributing -> beneficiary:<id>..., a later
	// chunk of a distribution.
	EntryDistributionCredit EntryType = "distribution_credit"
	// EntryBeneficiaryTransfer: beneficiary:<id> -> available.
	EntryBeneficiaryTransfer EntryType = "beneficiary_transfer"
	// EntryPaymentOrder: beneficiary:<id> -> beneficiary_reserved:<id>, when
	// a settlement payment order is created.
	EntryPaymentOrder EntryType = "payment_order"
	// EntryPaymentOrderPaid: beneficiary_reserved:<id> -> bank, when the bank
	// paid it.
	EntryPaymentOrderPaid EntryType = "payment_order_paid"
	// EntryPaymentOrderFailed: beneficiary_reserved:<id> -> beneficiary:<id>,
	// when the bank refused it.
	EntryPaymentOrderFailed EntryType = "payment_order_failed"
	// EntryInvoicePayment: bank -> pending (the fee -> fees), when the payer
	// paid a bank invoice; settled like a capture.
	EntryInvoicePayment EntryType = "invoice_payment"
)

// EntryTypes lists every type (the list filter and the OpenAPI enum).
var EntryTypes = []EntryType{EntryCapture, EntrySettlement, EntryRefund, EntrySplit, EntrySplitReversal,
	EntryPayout, EntryPayoutPaid, EntryPayoutFailed, EntryPayoutCancelled, EntryDisputeHold, EntryDisputeRelease, EntryDisputeLoss,
	EntryDebtRecovery, EntryDistribution, EntryDistributionCredit, EntryBeneficiaryTransfer, EntryPaymentOrder,
	EntryPaymentOrderPaid, EntryPaymentOrderFailed, EntryInvoicePayment}

// Valid reports whether t is a known entry type.
func (t EntryType) Valid() bool { return slices.Contains(EntryTypes, t) }

// SourceType is the kind of record an entry is tied to.
type SourceType string

// Source types.
const (
	SourceTransaction       SourceType = "transaction"        // a card payment (payments.Payment of type payment)
	SourceRefund            SourceType = "refund"             // a card refund (its own transaction record)
	SourceWalletTransaction SourceType = "wallet_transaction" // a wallet transaction (capture and refunds)
	SourcePayout            SourceType = "payout"
	SourceSplitRequest      SourceType = "split_request"
	SourceDispute           SourceType = "dispute"
	SourceNegativeBalance   SourceType = "negative_balance" // a debt recovery: the owed balance of the currency in ID
	SourceDistribution      SourceType = "distribution"
	SourceTransfer          SourceType = "beneficiary_transfer"
	SourcePaymentOrder      SourceType = "payment_order"
	SourceInvoice           SourceType = "invoice"
)

// SourceTypes lists every source type (the OpenAPI enum).
var SourceTypes = []SourceType{SourceTransaction, SourceRefund, SourceWalletTransaction, SourcePayout, SourceSplitRequest,
	SourceDispute, SourceNegativeBalance, SourceDistribution, SourceTransfer, SourcePaymentOrder, SourceInvoice}

// Valid reports whether t is a known source type.
func (t SourceType) Valid() bool { return slices.Contains(SourceTypes, t) }

// Source is the record that caused an entry.
type Source struct {
	Type SourceType `json:"type"`
	ID   string     `json:"id"`
}

// Posting is one account's side of an entry: Amount (minor units) is added
// to the account's balance, so a negative amount takes from it.
type Posting struct {
	Account Account `json:"account"`
	Amount  int64   `json:"amount"`
}

// Entry is one balanced movement: its postings sum to zero, in one currency.
// Written once (put-if-absent) and never changed; a mistake is corrected by
// another entry.
type Entry struct {
	ID        string    `json:"id"` // UUIDv7: the account's entries sort by time
	AccountID string    `json:"account_id"`
	Type      EntryType `json:"type"`
	Currency  string    `json:"currency"`
	Postings  []Posting `json:"postings"`
	Source    Source    `json:"source"`
	// Parent is the entry this one follows from: a settlement's capture.
	Parent      string     `json:"parent,omitempty"`
	Livemode    bool       `json:"livemode"`
	CreatedAt   time.Time  `json:"created_at"`
	AvailableOn *time.Time `json:"available_on,omitempty"` // a capture: when its funds settle
}

// Net is what the entry changed in the merchant's own balances (pending,
// available, reserved, disputed and owed together): a capture's amount less
// its fee and the partners' shares, a refund's negative amount, a lost
// dispute's negative amount and fee, 0 for a settlement, a payout's
// reservation, a dispute's hold or release, or a debt recovery.
func (e *Entry) Net() int64 {
	var n int64
	for _, p := range e.Postings {
		if p.Account.Merchant() {
			n += p.Amount
		}
	}
	return n
}

// Validate holds the entry to the rules of the books: a known type, an id,
// an account, a currency, at least two postings to known accounts, no zero
// posting, no account twice, and a sum of zero. A failure is a programming
// error (Internal): entries are built by code, never from a request.
func (e *Entry) Validate() error {
	bad := func(format string, args ...any) error {
		return &apierr.Error{Kind: apierr.Internal, Op: "ledger.Validate", Err: fmt.Errorf("entry %s: "+format, append([]any{e.ID}, args...)...)}
	}
	switch {
	case !e.Type.Valid():
		return bad("unknown type %q", e.Type)
	case !e.Source.Type.Valid():
		return bad("unknown source type %q", e.Source.Type)
	case e.ID == "" || e.AccountID == "" || len(e.Currency) != 3:
		return bad("needs an id, an account and a currency")
	case len(e.Postings) < 2:
		return bad("needs two postings at least")
	}
	var sum int64
	seen := map[Account]bool{}
	for _, p := range e.Postings {
		if !p.Account.Valid() || p.Amount == 0 || seen[p.Account] {
			return bad("posting %q %d: unknown account, zero amount or account twice", p.Account, p.Amount)
		}
		seen[p.Account] = true
		if p.Amount > MaxPosting || p.Amount < -MaxPosting {
			return bad("posting %q %d is out of range", p.Account, p.Amount)
		}
		sum += p.Amount
	}
	if sum != 0 {
		return bad("postings sum to %d, not zero", sum)
	}
	return nil
}

// MaxPosting bounds one posting: 2^53, the largest amount any route takes,
// so sums of a hundred postings cannot overflow.
const MaxPosting = int64(1) << 53

// Policy is what the books need to know beyond the records: how long
// captured funds stay pending, and the processing fee.
type Policy struct {
	// SettlementDelay is how long a capture's funds stay pending before the
	// settlement task makes them available. 0 (the sandbox) settles them in
	// the capture's own transaction, so a refund may follow at once.
	SettlementDelay time.Duration
	// FeeBps is the processing fee in basis points of each capture (0 to
	// 10000), rounded down to the minor unit, posted to Fees. 0 in the
	// sandbox.
	FeeBps int64
}

// Fee is the processing fee of a capture of amount.
func (p Policy) Fee(amount int64) int64 {
	if p.FeeBps <= 0 || amount <= 0 {
		return 0
	}
	return MulDiv(amount, p.FeeBps, 10000)
}

// PolicyFromEnv reads SETTLEMENT_DELAY (a Go duration such as 48h; default
// 0) and PROCESSING_FEE_BPS (basis points 0 to 10000; default 0). Every
// function that captures or settles reads the same variables (every nested
// stack of template.yaml sets them in Globals), so all capture paths post alike.
func PolicyFromEnv(getenv func(string) string) (Policy, error) {
	var p Policy
	if getenv == nil {
		return p, nil
	}
	if s := getenv("SETTLEMENT_DELAY"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return p, fmt.Errorf("SETTLEMENT_DELAY must be a duration such as 48h, not %q", s)
		}
		p.SettlementDelay = d
	}
	if s := getenv("PROCESSING_FEE_BPS"); s != "" {
		var bps int64
		if _, err := fmt.Sscanf(s, "%d", &bps); err != nil || bps < 0 || bps > 10000 || fmt.Sprint(bps) != s {
			return p, fmt.Errorf("PROCESSING_FEE_BPS must be an integer from 0 to 10000, not %q", s)
		}
		p.FeeBps = bps
	}
	return p, nil
}
