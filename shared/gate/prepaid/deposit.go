package prepaid

import (
	"context"
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/platform/accounts"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// Method is how a deposit reached us.
type Method string

const (
	MethodBankWire Method = "bank_wire"
	MethodManual   Method = "manual"
)

// Status is a deposit's state: pending until it credits the balance.
type Status string

const (
	StatusPending Status = "pending"
	StatusPosted  Status = "posted"
)

// KindDeposit is the resource kind for version changes.
const KindDeposit = "gate_deposit"

// MaxExternalRefLen bounds a deposit reference (a bank or operator reference).
const MaxExternalRefLen = 128

// Deposit is money added to a balance. Amount is minor units of Currency.
type Deposit struct {
	ID          string     `json:"id"`
	AccountID   string     `json:"account_id"`
	Currency    string     `json:"currency"`
	Amount      int64      `json:"amount"`
	Method      Method     `json:"method"`
	Status      Status     `json:"status"`
	ExternalRef string     `json:"external_ref"`
	CreatedAt   time.Time  `json:"created_at"`
	PostedAt    *time.Time `json:"posted_at,omitempty"`
	// Livemode is false for the test helper's sandbox deposits and the
	// account's mode for an operator's (PostDeposit); it goes to the
	// deposit.posted event only.
	Livemode bool `json:"livemode,omitempty"`
}

// View is the public form of a deposit (amounts as DecimalAmount).
type View struct {
	ID           string     `json:"id"`
	CurrencyCode string     `json:"currency_code"`
	Amount       string     `json:"amount"`
	Method       Method     `json:"method"`
	Status       Status     `json:"status"`
	ExternalRef  string     `json:"external_ref"`
	CreatedAt    time.Time  `json:"created_at"`
	PostedAt     *time.Time `json:"posted_at"`
}

// View renders d for the API.
func (d *Deposit) View() View {
	c, _ := money.ParseCurrency(d.Currency)
	return View{
		ID: d.ID, CurrencyCode: d.Currency, Amount: money.FormatDecimal(d.Amount, c), Method: d.Method,
		Status: d.Status, ExternalRef: d.ExternalRef, CreatedAt: d.CreatedAt, PostedAt: d.PostedAt,
	}
}

func depositPK(accountID string) string { return "dep#" + accountID }

// refKey claims an external reference for one deposit of the account; its
// Data is that deposit, so a duplicate gets the first one without a read.
func refKey(accountID, ref string) store.Key {
	return store.Key{Table: store.TableLedger, PK: "depref#" + accountID, SK: ref}
}

// validate normalises and checks a deposit to post.
func (in *Deposit) validate() error {
	c, err := money.ParseCurrencyField("currency_code", in.Currency)
	if err != nil {
		return err
	}
	in.Currency = c.Code()
	if in.Amount <= 0 || in.Amount > money.MaxMinor {
		return apierr.Invalidf("amount", "amount must be greater than zero and at most %s", money.FormatDecimal(money.MaxMinor, c))
	}
	switch in.Method {
	case "":
		in.Method = MethodManual
	case MethodBankWire, MethodManual:
	default:
		return apierr.Invalidf("method", "method must be bank_wire or manual")
	}
	if utf8.RuneCountInString(in.ExternalRef) > MaxExternalRefLen {
		return apierr.Invalidf("external_ref", "external_ref must be at most %d characters", MaxExternalRefLen)
	}
	for _, r := range in.ExternalRef {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return apierr.Invalidf("external_ref", "external_ref must be printable characters without spaces")
		}
	}
	return nil
}

// postAttempts bounds retries of a transaction that lost a race (a DynamoDB
// transaction conflict): the retry either wins or finds the reference taken.
const postAttempts = 5

// PostDeposit records a posted deposit, credits the balance and writes its
// deposit.posted event in one transaction. It is the operator's path (admin
// CLI, local seed); the event takes the account's mode. The external reference is claimed
// in the same transaction, so
// posting one reference twice (or concurrently) credits once: the second call
// returns the first deposit with created = false, whatever its amount, and
// writes no second event. An
// empty reference gets the deposit's id. Errors: Invalid (bad input, and
// balance_limit_exceeded when the balance would pass money.MaxBalance: the
// store refuses the credit atomically, so nothing is written), Unavailable,
// Internal.
func (l *Ledger) PostDeposit(ctx context.Context, accountID string, in Deposit) (*Deposit, bool, error) {
	// The event's mode is the account's: a test account's deposits reach its
	// test endpoints, a live one's its live endpoints.
	// (No account record: no endpoint can hear it either; test mode.)
	a, err := accounts.NewRepo(l.st, l.clock).Get(ctx, accountID)
	switch {
	case err == nil:
		in.Livemode = a.Mode == accounts.Live
	case apierr.KindOf(err) != apierr.NotFound:
		return nil, false, err
	}
	return l.Post(ctx, PostInput{AccountID: accountID, Deposit: in})
}

// PostInput is a deposit to post, typed, for every caller (the test helper's
// handler, the admin CLI, the local seed).
type PostInput struct {
	AccountID string
	Deposit   Deposit
	// Idem is a keyed call (httpapi.Request.Idem) or nil. Its record joins
	// the deposit's transaction (201, the new deposit); when the reference
	// was posted before with the same currency and amount, the 200 answer
	// with the first deposit is recorded alone.
	Idem *idempotency.Call
}

// Post is PostDeposit with an idempotent call. It returns, besides
// PostDeposit's results and errors, the key's verdicts: a
// *idempotency.Replayed, a Conflict (in flight) or an IdempotencyMismatch.
func (l *Ledger) Post(ctx context.Context, in PostInput) (*Deposit, bool, error) {
	if err := in.Deposit.validate(); err != nil {
		return nil, false, err
	}
	for attempt := 1; ; attempt++ {
		d, created, err := l.post(ctx, in)
		if apierr.Is(err, apierr.Conflict) && !idempotency.FromKey(err) && attempt < postAttempts && ctx.Err() == nil {
			continue
		}
		if err != nil || created || !in.Idem.Keyed() {
			return d, created, err
		}
		if d.Currency == in.Deposit.Currency && d.Amount == in.Deposit.Amount {
			// The same deposit again: a definitive answer, kept for the key.
			out := idempotency.Outcome{Kind: KindDeposit, Value: d.View()}
			if err := idempotency.Commit(ctx, l.st, in.Idem, out); err != nil {
				return nil, false, err
			}
		}
		return d, false, nil
	}
}

func (l *Ledger) post(ctx context.Context, in PostInput) (*Deposit, bool, error) {
	accountID := in.AccountID
	now := l.clock().UTC()
	d := in.Deposit
	d.ID = ids.New()
	d.AccountID = accountID
	d.Status = StatusPosted
	d.CreatedAt = now
	d.PostedAt = &now
	if d.ExternalRef == "" {
		d.ExternalRef = d.ID
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, false, apierr.Wrap("ledger.PostDeposit", apierr.Internal, err)
	}
	event, err := postedEventOp(&d, now)
	if err != nil {
		return nil, false, err
	}
	// The reference claim stays op 1 (a taken reference answers the first
	// deposit from the failed condition); the event comes last.
	err = idempotency.Commit(ctx, l.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindDeposit, Value: d.View()},
		store.Put(store.Item{Key: store.Key{Table: store.TableLedger, PK: depositPK(accountID), SK: depositSK(&d)}, Data: data}, store.IfAbsent),
		store.Put(store.Item{Key: refKey(accountID, d.ExternalRef), Data: data}, store.IfAbsent),
		CreditOp(accountID, d.Currency, d.Amount, now),
		event,
	)
	if idempotency.FromKey(err) {
		return nil, false, err
	}
	if IsBalanceFull(err) {
		return nil, false, BalanceFull(d.Currency)
	}
	if cf, ok := store.IsConditionFailed(err); ok && cf.Index == 1 && cf.Current != nil {
		var first Deposit
		if err := json.Unmarshal(cf.Current.Data, &first); err != nil {
			return nil, false, apierr.Wrap("ledger.PostDeposit", apierr.Internal, err)
		}
		return &first, false, nil
	}
	if err != nil {
		return nil, false, apierr.Wrap("ledger.PostDeposit", apierr.Internal, err)
	}
	return &d, true, nil
}
