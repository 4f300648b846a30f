package vault

import "time"

// CustomerView is the Pay API representation of a customer: what GET
// /v1/customers/{id} answers and what its events carry as data
// (shared/pay/customers serves it as its Customer).
type CustomerView struct {
	ID          string `json:"id"`
	ExternalRef string `json:"external_ref,omitempty"` // checkout's shopperReference
	Email       string `json:"email,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// DefaultCardTokenID is the card token a charge of the customer (a
	// recurring payment by customer_id) uses, when the merchant chose one.
	DefaultCardTokenID string            `json:"default_card_token_id,omitempty"`
	Livemode           bool              `json:"livemode"`
	CreatedAt          time.Time         `json:"created_at"`
	Metadata           map[string]string `json:"metadata"`
}

// View is c as the API shows it.
func (c *Customer) View() CustomerView {
	md := c.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return CustomerView{ID: c.ID, ExternalRef: c.ExternalRef, Email: c.Email, Name: c.Name, Description: c.Description,
		DefaultCardTokenID: c.DefaultCardTokenID, Livemode: c.Livemode, CreatedAt: c.CreatedAt, Metadata: md}
}

// TokenView is the Pay API representation of a card token: the card as
// checkout's stored payment method (the same id), never its number or CVC
// (shared/pay/customers serves it as its CardToken; its events carry it).
type TokenView struct {
	ID                 string            `json:"id"`
	CustomerID         string            `json:"customer_id"`
	Brand              string            `json:"brand"`
	Last4              string            `json:"last4"`
	ExpiryMonth        string            `json:"expiry_month"`
	ExpiryYear         string            `json:"expiry_year"`
	HolderName         string            `json:"holder_name,omitempty"`
	FirstTransactionID string            `json:"first_transaction_id,omitempty"`
	Livemode           bool              `json:"livemode"`
	CreatedAt          time.Time         `json:"created_at"`
	UpdatedAt          time.Time         `json:"updated_at"`
	Metadata           map[string]string `json:"metadata"`
}

// View is t as the API shows it.
func (t *CardToken) View() TokenView {
	return TokenView{ID: t.ID, CustomerID: t.CustomerID, Brand: t.Brand, Last4: t.Last4, ExpiryMonth: t.ExpiryMonth,
		ExpiryYear: t.ExpiryYear, HolderName: t.HolderName, FirstTransactionID: t.FirstTransactionID, Livemode: t.Livemode,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Metadata: map[string]string{}}
}
