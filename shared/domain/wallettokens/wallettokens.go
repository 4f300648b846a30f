// Package wallettokens holds the payment tokens the wallets' decodes make
// (shared/pay/walletpay decodes an Apple Pay or Google Pay token into one)
// and the payments that use them (direct payments' payment_token_id,
// checkout's paymentMethod.paymentTokenId): the card data sealed to the
// card keys, paid once, within TokenTTL.
package wallettokens

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// TokenType is the wallet a payment token came from.
type TokenType string

const (
	ApplePay  TokenType = "applepay"
	GooglePay TokenType = "googlepay"
)

// TokenTTL is how long a decoded wallet token may be paid with: a wallet's
// cryptogram is good for minutes, and the shopper is at the checkout.
const TokenTTL = time.Hour

// tokenKeep is how long a token's record outlives its use or expiry, so a
// wallet token decoded again (or paid again) within its signing window
// finds it and is the one payment.
const tokenKeep = 24 * time.Hour

// TokenIDPrefix starts every payment_token_id.
const TokenIDPrefix = "ptok_"

// MaxTokenID is a payment_token_id's length.
const MaxTokenID = len(TokenIDPrefix) + 32

// PaymentToken is a decoded wallet token (shared/pay/walletpay), kept until a
// payment uses it. The card data (device account number, expiry,
// cryptogram) is kept only as Sealed: a JWE to the card keys, which only the
// card-taking functions can decrypt, never in clear.
type PaymentToken struct {
	ID          string        `json:"id"`
	AccountID   string        `json:"account_id"`
	Livemode    bool          `json:"livemode"`
	Type        TokenType     `json:"type"`
	Brand       string        `json:"brand"`
	Last4       string        `json:"last4"`
	ExpiryMonth int           `json:"expiry_month"`
	ExpiryYear  int           `json:"expiry_year"`
	Amount      *money.Amount `json:"amount,omitempty"` // what the shopper approved (Apple Pay's tokens carry it)
	Cryptogram  bool          `json:"cryptogram"`
	Sealed      string        `json:"sealed"`
	CreatedAt   time.Time     `json:"created_at"`
	ExpiresAt   time.Time     `json:"expires_at"`
	// TransactionID is the payment that used the token (empty: unused).
	TransactionID string `json:"transaction_id,omitempty"`
	version       int64
}

// TokenView is a payment token as the decode routes answer it: what the
// merchant may see of the card, never its number or cryptogram.
type TokenView struct {
	PaymentTokenID    string        `json:"payment_token_id"`
	Type              TokenType     `json:"type"`
	Brand             string        `json:"brand"`
	Last4             string        `json:"last4"`
	ExpiryMonth       int           `json:"expiry_month"`
	ExpiryYear        int           `json:"expiry_year"`
	Amount            *money.Amount `json:"amount,omitempty"`
	CryptogramPresent bool          `json:"cryptogram_present"`
	Used              bool          `json:"used"`
	TransactionID     string        `json:"transaction_id,omitempty"`
	Livemode          bool          `json:"livemode"`
	CreatedAt         time.Time     `json:"created_at"`
	ExpiresAt         time.Time     `json:"expires_at"`
}

// KindToken is the resource kind of a token view (no dated changes).
const KindToken = "payment_token"

// View renders the token.
func (t *PaymentToken) View() TokenView {
	return TokenView{PaymentTokenID: t.ID, Type: t.Type, Brand: t.Brand, Last4: t.Last4, ExpiryMonth: t.ExpiryMonth,
		ExpiryYear: t.ExpiryYear, Amount: t.Amount, CryptogramPresent: t.Cryptogram, Used: t.TransactionID != "",
		TransactionID: t.TransactionID, Livemode: t.Livemode, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt}
}

// TokensPK is the partition of an account's payment tokens (payments table).
func TokensPK(accountID string) string { return "wtok#" + accountID }

// ClaimsPK is the partition of the wallets' transaction claims (payments
// table): one item per wallet transaction, whichever account decoded it.
// Apple Pay's tokens are sealed to the platform's processing key, not to an
// account, so without a claim another account holding the same token could
// decode it into a token of its own and pay the shopper's transaction twice.
func ClaimsPK(typ TokenType) string { return "wclaim#" + string(typ) }

func claimKey(typ TokenType, walletTransaction string) store.Key {
	sum := sha256.Sum256([]byte(walletTransaction))
	return store.Key{Table: store.TablePayments, PK: ClaimsPK(typ), SK: hex.EncodeToString(sum[:])}
}

func tokenKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: TokensPK(accountID), SK: id}
}

// TokenID is the payment_token_id of a wallet's transaction: the same
// wallet transaction (an Apple Pay transactionId, a Google Pay messageId)
// decoded twice is the same token, so it can be paid once.
func TokenID(accountID string, typ TokenType, walletTransaction string) string {
	sum := sha256.Sum256([]byte(accountID + "\x00" + string(typ) + "\x00" + walletTransaction))
	return TokenIDPrefix + hex.EncodeToString(sum[:16])
}

// Card is a decrypted card as a new payment token takes it (the card
// keys' type).
type Card = cse.Card

// NewToken is what a wallet's decode hands over: the card's public details
// and its data, sealed at once to the direct-payment keys.
type NewToken struct {
	AccountID         string
	Livemode          bool
	Type              TokenType
	WalletTransaction string // the wallet's own id of the payment (dedupes decodes)
	Card              Card
	Brand             string
	ExpiryMonth       int
	ExpiryYear        int
	Amount            *money.Amount
	Now               time.Time
}

// Tokens writes and reads payment tokens; the wallet decodes
// (shared/pay/walletpay) create them, direct and checkout payments use them.
type Tokens struct {
	st   store.Store
	keys *cse.Keyring
}

// NewTokens is the token store over st, sealing card data with keys.
func NewTokens(st store.Store, keys *cse.Keyring) *Tokens { return &Tokens{st: st, keys: keys} }

// NewSealingTokens is the token store of a function that seals card data
// and never opens it (the wallet sessions): a sealer keyring, the keys'
// public halves only, so no KMS client is linked or granted.
func NewSealingTokens(st store.Store, clock func() time.Time) *Tokens {
	return NewTokens(st, cse.NewSealer(st, clock))
}

// Build seals a decoded card into a new token and returns it with the
// writes that store it: the token and its wallet transaction's claim, both
// put-if-absent, so a second decode of the same wallet transaction, by this
// account (see Get) or any other (see ClaimedElsewhere), fails its
// condition. The card data never leaves this call in clear.
func (ts *Tokens) Build(ctx context.Context, in NewToken) (*PaymentToken, []store.Op, error) {
	sealed, err := ts.keys.Seal(ctx, in.Card)
	if err != nil {
		return nil, nil, apierr.Wrap("wallettokens.Build", apierr.Unavailable, err)
	}
	now := in.Now.UTC()
	last4 := ""
	if n := len(in.Card.Number); n >= 4 {
		last4 = in.Card.Number[n-4:]
	}
	t := &PaymentToken{ID: TokenID(in.AccountID, in.Type, in.WalletTransaction), AccountID: in.AccountID, Livemode: in.Livemode,
		Type: in.Type, Brand: in.Brand, Last4: last4, ExpiryMonth: in.ExpiryMonth, ExpiryYear: in.ExpiryYear, Amount: in.Amount,
		Cryptogram: in.Card.Cryptogram != "", Sealed: sealed, CreatedAt: now, ExpiresAt: now.Add(TokenTTL)}
	op, err := t.putOp(store.IfAbsent)
	if err != nil {
		return nil, nil, err
	}
	claim, err := json.Marshal(map[string]string{"account_id": t.AccountID, "payment_token_id": t.ID})
	if err != nil {
		return nil, nil, apierr.Wrap("wallettokens.Build", apierr.Internal, err)
	}
	return t, []store.Op{op, store.Put(store.Item{Key: claimKey(in.Type, in.WalletTransaction), Data: claim,
		ExpiresAt: t.ExpiresAt.Add(tokenKeep)}, store.IfAbsent)}, nil
}

// ClaimedElsewhere is the answer to a decode whose wallet transaction
// another account decoded first: a Conflict that names neither the other
// account nor its token.
func ClaimedElsewhere(param string) error {
	return apierr.New(CodeWalletTransactionClaimed, "this wallet payment was already decoded by another merchant: a wallet transaction pays once; ask the shopper to pay again").WithParam(param)
}

func (t *PaymentToken) putOp(cond store.Cond) (store.Op, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return store.Op{}, apierr.Wrap("wallettokens.put", apierr.Internal, err)
	}
	// The record stays past its use or expiry (see tokenKeep); the code
	// checks ExpiresAt itself.
	keep := t.ExpiresAt.Add(tokenKeep)
	return store.Put(store.Item{Key: tokenKey(t.AccountID, t.ID), Data: data, ExpiresAt: keep}, cond), nil
}

// Get reads one of the account's tokens: NotFound when there is none (or
// another account's). An expired or used token is returned as it is.
func (ts *Tokens) Get(ctx context.Context, accountID, id string) (*PaymentToken, error) {
	it, err := ts.st.Get(ctx, tokenKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payment token: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("wallettokens.Get", apierr.Unavailable, err)
	}
	var t PaymentToken
	if err := json.Unmarshal(it.Data, &t); err != nil {
		return nil, apierr.Wrap("wallettokens.Get", apierr.Internal, err)
	}
	t.version = it.Version
	return &t, nil
}

// UseOp marks t used by payment id, conditioned on the version read: of two
// payments racing for one token, one commits.
func (t *PaymentToken) UseOp(paymentID string) (store.Op, error) {
	u := *t
	u.TransactionID = paymentID
	return u.putOp(store.IfVersion(t.version))
}

// ErrAmountMismatch is Payable's answer to a payment of another amount than
// the one the shopper approved in the wallet; the caller words it with its
// own amount field.
var ErrAmountMismatch = errors.New("amount is not the amount the shopper approved in the wallet")

// Payable checks that t may pay amount in currency at now: unused (Conflict
// payment_token_used), unexpired (Invalid payment_token_expired naming
// param), and for the amount the wallet approved, when it named one
// (ErrAmountMismatch).
func (t *PaymentToken) Payable(now time.Time, amount int64, currency, param string) error {
	switch {
	case t.TransactionID != "":
		return t.Used()
	case !now.Before(t.ExpiresAt):
		return Expired(param)
	case t.Amount != nil && (t.Amount.Value != amount || t.Amount.Currency != currency):
		return ErrAmountMismatch
	}
	return nil
}

// Used is the Conflict of a token that paid already.
func (t *PaymentToken) Used() error {
	return apierr.New(CodePaymentTokenUsed, "payment token %s was already used by transaction %s: a wallet token pays once", t.ID, t.TransactionID)
}

// Expired is the answer to a token past its TTL, or sealed to a card key
// that expired since.
func Expired(param string) error {
	return apierr.New(CodePaymentTokenExpired, "the payment token expired: decode the wallet token again").WithParam(param)
}

// ValidID reports whether id has a payment_token_id's form.
func ValidID(id string) bool {
	if len(id) != MaxTokenID || id[:len(TokenIDPrefix)] != TokenIDPrefix {
		return false
	}
	for _, r := range id[len(TokenIDPrefix):] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// The payment tokens' codes.
var (
	CodePaymentTokenExpired = apierr.Register(apierr.CodeInfo{Name: "payment_token_expired", Kind: apierr.Invalid,
		Meaning: "The payment token expired: decode the wallet token again."})
	CodePaymentTokenUsed = apierr.Register(apierr.CodeInfo{Name: "payment_token_used", Kind: apierr.Conflict, Param: "payment_token_id",
		Meaning: "The payment token paid already: a token pays once."})
	CodeWalletTransactionClaimed = apierr.Register(apierr.CodeInfo{Name: "wallet_transaction_claimed", Kind: apierr.Conflict,
		Meaning: "Another merchant of the platform decoded this wallet transaction first: a wallet transaction pays once."})
)
