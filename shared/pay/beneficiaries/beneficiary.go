package beneficiaries

import (
	"encoding/json"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Resource kinds, for version changes (metadata before 2024-01-15).
const (
	KindBeneficiary  = "beneficiary"
	KindTransfer     = "beneficiary_transfer"
	KindPaymentOrder = "payment_order"
	KindDistribution = "distribution"
	KindDistBalance  = "distribution_balance"
)

// Type is what a beneficiary is: a person (an IIN) or a company (a BIN).
type Type string

const (
	Person  Type = "person"
	Company Type = "company"
)

// Types lists every type.
var Types = []Type{Person, Company}

// Status is a beneficiary's state: a disabled one receives no distribution
// and no payment order, and can be enabled again; what it holds can still
// be transferred back to the merchant.
type Status string

const (
	Active   Status = "active"
	Disabled Status = "disabled"
)

// Statuses lists every status.
var Statuses = []Status{Active, Disabled}

// statusTransitions: a beneficiary is disabled and enabled at will (its
// balance and history stay).
var statusTransitions = map[Status][]Status{Active: {Disabled}, Disabled: {Active}}

// CanTransition reports whether from -> to is allowed (staying is).
func (from Status) CanTransition(to Status) bool {
	return from == to || slices.Contains(statusTransitions[from], to)
}

// Balance is what a beneficiary holds in one currency.
type Balance struct {
	Currency  string `json:"currency"`
	Available int64  `json:"available"` // beneficiary:<id>: distributions in, transfers and payment orders out
	Reserved  int64  `json:"reserved"`  // beneficiary_reserved:<id>: payment orders on their way to the bank
}

// Beneficiary is a beneficiary as the API shows it.
type Beneficiary struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Name     string            `json:"name"`
	Type     Type              `json:"type"`
	IIN      string            `json:"iin,omitempty"`
	BIN      string            `json:"bin,omitempty"`
	IBAN     string            `json:"iban"`
	BIC      string            `json:"bic"`
	KBe      string            `json:"kbe"`
	Email    string            `json:"email,omitempty"`
	Status   Status            `json:"status"`
	Livemode bool              `json:"livemode"`
	Metadata map[string]string `json:"metadata"`
	// Balances, per currency it ever held: on a read of one beneficiary only.
	Balances  *[]Balance `json:"balances,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// record is the stored beneficiary.
type record struct {
	Beneficiary
	AccountID string `json:"account_id"`
	version   int64
}

func (b *record) view() Beneficiary {
	v := b.Beneficiary
	v.Object = KindBeneficiary
	v.Balances = nil
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	return v
}

func (b *record) item() (store.Item, error) {
	data, err := json.Marshal(b)
	return store.Item{Key: beneficiaryKey(b.AccountID, b.ID), Data: data}, err
}

func decodeBeneficiary(it store.Item) (*record, error) {
	var b record
	if err := json.Unmarshal(it.Data, &b); err != nil {
		return nil, apierr.Wrap("beneficiaries.decode", apierr.Internal, err)
	}
	b.version = it.Version
	b.Balances = nil
	return &b, nil
}

// Limits of a beneficiary's fields.
const (
	MaxName  = 200
	MaxEmail = 254
)

// CreateRequest is the body of POST /v1/merchants/beneficiaries.
type CreateRequest struct {
	Name     *string           `json:"name" maxlen:"200"`
	Type     *string           `json:"type" maxlen:"7"`
	IIN      *string           `json:"iin" maxlen:"12"`
	BIN      *string           `json:"bin" maxlen:"12"`
	IBAN     *string           `json:"iban" maxlen:"34"`
	BIC      *string           `json:"bic" maxlen:"11"`
	KBe      *string           `json:"kbe" maxlen:"2"`
	Email    *string           `json:"email" maxlen:"254"`
	Metadata map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// UpdateRequest is the body of POST /v1/merchants/beneficiaries/{id}: every
// field optional; a person stays a person and keeps its IIN (a company its
// BIN): register another beneficiary for another identity.
type UpdateRequest struct {
	Name     *string           `json:"name" maxlen:"200"`
	IBAN     *string           `json:"iban" maxlen:"34"`
	BIC      *string           `json:"bic" maxlen:"11"`
	KBe      *string           `json:"kbe" maxlen:"2"`
	Email    *string           `json:"email" maxlen:"254"`
	Status   *string           `json:"status" maxlen:"8"`
	Metadata map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// validate checks a create body and returns the beneficiary's fields.
func (in *CreateRequest) validate() (*Beneficiary, error) {
	if in.Name == nil {
		return nil, apierr.Missing("name")
	}
	if err := checkName(*in.Name); err != nil {
		return nil, err
	}
	if in.Type == nil {
		return nil, apierr.Missing("type")
	}
	t := Type(*in.Type)
	if !slices.Contains(Types, t) {
		return nil, apierr.Invalidf("type", "type must be person or company")
	}
	b := &Beneficiary{Name: strings.TrimSpace(*in.Name), Type: t, Status: Active, Metadata: in.Metadata}
	switch t {
	case Person:
		if in.BIN != nil {
			return nil, apierr.Invalidf("bin", "a person has an iin, not a bin")
		}
		if in.IIN == nil {
			return nil, apierr.Missing("iin")
		}
		if err := kzid.CheckIIN("iin", *in.IIN); err != nil {
			return nil, err
		}
		b.IIN = *in.IIN
	case Company:
		if in.IIN != nil {
			return nil, apierr.Invalidf("iin", "a company has a bin, not an iin")
		}
		if in.BIN == nil {
			return nil, apierr.Missing("bin")
		}
		if err := kzid.CheckBIN("bin", *in.BIN); err != nil {
			return nil, err
		}
		b.BIN = *in.BIN
	}
	if in.IBAN == nil {
		return nil, apierr.Missing("iban")
	}
	if in.BIC == nil {
		return nil, apierr.Missing("bic")
	}
	if in.KBe == nil {
		return nil, apierr.Missing("kbe")
	}
	b.IBAN, b.BIC, b.KBe = *in.IBAN, *in.BIC, *in.KBe
	if in.Email != nil {
		if err := checkEmail(*in.Email); err != nil {
			return nil, err
		}
		b.Email = *in.Email
	}
	return b, checkFields(b)
}

// apply changes b by an update body; the result is checked whole.
func (in *UpdateRequest) apply(b *Beneficiary) error {
	if in.Name != nil {
		if err := checkName(*in.Name); err != nil {
			return err
		}
		b.Name = strings.TrimSpace(*in.Name)
	}
	if in.IBAN != nil {
		b.IBAN = *in.IBAN
	}
	if in.BIC != nil {
		b.BIC = *in.BIC
	}
	if in.KBe != nil {
		b.KBe = *in.KBe
	}
	if in.Email != nil {
		if err := checkEmail(*in.Email); err != nil {
			return err
		}
		b.Email = *in.Email
	}
	if in.Status != nil {
		to := Status(*in.Status)
		if !slices.Contains(Statuses, to) {
			return apierr.Invalidf("status", "status must be active or disabled")
		}
		if !b.Status.CanTransition(to) {
			return apierr.New(CodeBeneficiaryStateConflict, "a %s beneficiary cannot become %s", b.Status, to)
		}
		b.Status = to
	}
	if in.Metadata != nil {
		b.Metadata = in.Metadata
	}
	return checkFields(b)
}

func checkName(s string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(s)); n < 1 || n > MaxName {
		return apierr.Invalidf("name", "name must be 1 to %d characters (not blank)", MaxName)
	}
	return nil
}

// checkFields holds the bank details, the KBe and the e-mail to their rules.
func checkFields(b *Beneficiary) error {
	if err := kzid.CheckIBAN("iban", b.IBAN); err != nil {
		return err
	}
	if err := kzid.CheckBIC("bic", b.BIC); err != nil {
		return err
	}
	if err := kzid.CheckKBe("kbe", b.KBe, b.Type == Person); err != nil {
		return err
	}
	return metadata.Check(b.Metadata)
}

// checkEmail holds an e-mail address to a plain address (no display name,
// no comment): what mail.ParseAddress reads back unchanged.
func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || len(s) > MaxEmail {
		return apierr.Invalidf("email", "email must be a plain address such as name@example.com")
	}
	return nil
}
