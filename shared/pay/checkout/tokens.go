package checkout

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Stored payment methods are the Pay API's card tokens (shared/domain/vault): one
// record, one id. A payment with storePaymentMethod and a shopperReference
// saves its card as a token of the customer whose external_ref is the
// shopperReference, creating the customer when there is none, in the
// payment's own transaction; a payment with storedPaymentMethodId charges a
// token. Neither keeps the card number or CVC.

// tokenUse is a card token a payment pays with.
type tokenUse struct {
	token  *vault.CardToken
	legacy bool // a legacy stored card, migrated by the payment's write
}

// runToken runs a payment with stored payment method id of shopperRef: with
// the shopper present its card's 3-D Secure and redirects apply; a
// merchant-initiated charge (offSession: Adyen's ContAuth) has neither. A
// token of another shopper, or none, is a 400 stored_method_unknown.
func (svc *Service) runToken(ctx context.Context, c Caller, proc cards.Processor, ch cards.Charge, id, shopperRef string, offSession bool) (*attempt, error) {
	const field = "paymentMethod.storedPaymentMethodId"
	if shopperRef == "" {
		return nil, apierr.Missing("shopperReference")
	}
	unknown := invalid(field, CodeStoredMethodUnknown, "no stored payment method %q for this shopperReference", id)
	use := &tokenUse{}
	t, err := svc.vault.Token(ctx, c.AccountID, id)
	if apierr.Is(err, apierr.NotFound) {
		use.legacy = true
		t, err = svc.vault.LegacyToken(ctx, c.AccountID, shopperRef, id)
	}
	switch {
	case apierr.Is(err, apierr.NotFound):
		return nil, unknown
	case err != nil:
		return nil, err
	case t.ShopperReference != shopperRef:
		return nil, unknown
	}
	use.token = t
	out, err := proc.AuthoriseStored(ctx, ch, t.Card(), offSession)
	if err != nil {
		e := *apierr.As(err)
		e.Param = field
		return nil, &e
	}
	return &attempt{out: out, method: out.Brand, token: use}, nil
}

// cardIdentity normalises what makes two saved cards the same card: the
// number without spaces, a two-digit month and a four-digit year.
func cardIdentity(number, month, year string) (string, string, string) {
	number = strings.ReplaceAll(number, " ", "")
	if len(month) == 1 {
		month = "0" + month
	}
	if len(year) == 2 {
		year = "20" + year
	}
	return number, month, year
}

// tokenID is the card token id of card c of shopperRef: a keyed fingerprint
// (sessiondata.Signer.Fingerprint) of the account, shopper, number and
// expiry, never the number in clear. It is the id stored methods always
// had, so a card saved again, and a legacy record of it, share one id.
func (svc *Service) tokenID(accountID, shopperRef string, c *cards.Card) string {
	num, month, year := cardIdentity(c.Number, c.ExpiryMonth, c.ExpiryYear)
	return "spm_" + svc.signer.Fingerprint("stored-card", accountID, shopperRef, num, month, year)
}

// keptCard is a card a payment saves once authorised: the token's fields,
// no number, no CVC. A payment waiting for 3-D Secure keeps it in its flow
// (Flow.KeepCard) until the details call decides it.
type keptCard struct {
	ShopperRef string          `json:"s"`
	Email      string          `json:"e,omitempty"`
	TokenID    string          `json:"t"`
	Card       cards.SavedCard `json:"c"`
}

// cardToKeep is the card payment in saves (storePaymentMethod with a
// shopperReference, a card entered now), nil when it saves none.
func (svc *Service) cardToKeep(c Caller, in *PaymentRequest, shopperRef string, att *attempt) *keptCard {
	if !in.StorePaymentMethod || shopperRef == "" || att.card == nil {
		return nil
	}
	_, month, year := cardIdentity(att.card.Number, att.card.ExpiryMonth, att.card.ExpiryYear)
	email := ""
	if vault.CheckEmail("shopperEmail", in.ShopperEmail) == nil {
		email = in.ShopperEmail
	}
	return &keptCard{ShopperRef: shopperRef, Email: email, TokenID: svc.tokenID(c.AccountID, shopperRef, att.card),
		Card: cards.SavedCard{Profile: att.out.Profile, Brand: att.out.Brand, Last4: att.out.Last4, ExpiryMonth: month,
			ExpiryYear: year, HolderName: att.card.HolderName}}
}

// takeKept takes the card a payment that waited for 3-D Secure asked to
// save, once it no longer waits: the card to save when it succeeded, nil
// otherwise (it leaves the flow either way).
func takeKept(p *payments.Payment) *keptCard {
	raw := p.Flow.KeepCard
	if raw == "" || p.Status == payments.RequiresAction {
		return nil
	}
	p.Flow.KeepCard = ""
	var k keptCard
	if json.Unmarshal([]byte(raw), &k) != nil || !p.Status.Succeeded() {
		return nil // written by this code, so unreadable means a bug: no card is saved
	}
	return &k
}

// vaultUse is what a payment's write does in the vault.
type vaultUse struct {
	shopperRef string    // the payment's shopper: it joins the shopper's customer
	keep       *keptCard // a card to save
	token      *tokenUse // the card token it paid with
	// wallet is the decoded wallet token it paid with, marked used in the
	// payment's own write.
	wallet *wallettokens.PaymentToken
}

// claimAttempts bounds the re-writes of a payment that lost a race in the
// vault (vault.Writes.Lost): to create its shopper's customer, then to
// create the card's token (each re-write finds what the winner wrote; a
// customer created by POST /v1/customers, which saves no card, can cost one
// more), or a token deleted while the card was saved again.
const claimAttempts = 4

// commitPayment writes payment p (new, or moved by a details call) with
// its session's writes and the vault's (vaultWrites): a payment that lost
// a race in the vault (two first payments of a new shopper creating its
// customer, two payments saving one new card) reads the winner's and
// writes again, so the shopper gets one customer and the card one token,
// each with one event. Errors: as commitWithSession.
func (svc *Service) commitPayment(ctx context.Context, c Caller, p *payments.Payment, body PaymentResponse, s *Session, use vaultUse, hold LinkHold) error {
	if use.keep == nil {
		use.keep = takeKept(p)
	}
	for attempt := 1; ; attempt++ {
		w, err := svc.vaultWrites(ctx, c, p, use)
		if err != nil {
			return err
		}
		ops, err := svc.pays.SaveOps(p)
		if err != nil {
			return err
		}
		if w != nil {
			ops = append(ops, w.Ops...)
		}
		if use.wallet != nil {
			op, err := use.wallet.UseOp(p.ID)
			if err != nil {
				return err
			}
			ops = append(ops, op)
		}
		if ops, err = withLinkOps(ops, hold, p, c.Now); err != nil {
			return err
		}
		err = svc.commitWithSession(ctx, c, body, ops, s, hold)
		if err != nil && use.wallet != nil && apierr.HasCode(err, payments.CodeChanged) {
			if lost := svc.walletTokenLost(ctx, c, use.wallet, p.ID); lost != nil {
				return lost
			}
		}
		if err == nil || w == nil || attempt == claimAttempts || !apierr.HasCode(err, payments.CodeChanged) {
			return err
		}
		if !svc.vault.Lost(ctx, w) {
			return err // not the vault's race: the payment itself changed
		}
	}
}

// vaultWrites ties p to the vault: a payment with a card token is that
// token's customer's; a card to save is saved (its customer created when
// needed) once p succeeded, or kept in p.Flow while p waits for the
// shopper; a legacy stored card migrates; otherwise a new payment with a
// shopperReference joins the shopper's customer when there is one.
func (svc *Service) vaultWrites(ctx context.Context, c Caller, p *payments.Payment, use vaultUse) (*vault.Writes, error) {
	var w *vault.Writes
	var err error
	switch {
	case use.token != nil && use.token.legacy:
		w, err = svc.vault.Migrate(ctx, use.token.token, p.Livemode, c.Now)
	case use.token != nil:
		p.SetCustomer(use.token.token.CustomerID)
		p.CardTokenID = use.token.token.ID
		return nil, nil
	case use.keep != nil && p.Status.Succeeded():
		k := use.keep
		w, err = svc.vault.Save(ctx, vault.SaveCard{AccountID: p.AccountID, Livemode: p.Livemode, ShopperRef: k.ShopperRef,
			Email: k.Email, TokenID: k.TokenID, Card: k.Card, PaymentID: p.ID}, c.Now)
	case use.keep != nil && p.Status == payments.RequiresAction:
		b, err := json.Marshal(use.keep)
		if err != nil {
			return nil, apierr.Wrap("checkout.keepCard", apierr.Internal, err)
		}
		p.Flow.KeepCard = string(b)
	}
	if err != nil {
		return nil, err
	}
	if w != nil {
		p.SetCustomer(w.CustomerID)
		p.CardTokenID = w.Token.ID
		return w, nil
	}
	if use.shopperRef != "" && p.CustomerID == "" && p.Version() == 0 {
		id, err := svc.vault.CustomerID(ctx, c.AccountID, use.shopperRef)
		switch {
		case err == nil:
			p.SetCustomer(id)
		case !apierr.Is(err, apierr.NotFound):
			return nil, err
		}
	}
	return nil, nil
}
