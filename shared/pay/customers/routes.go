package customers

import (
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the CustomersFunction's routes (declared in CustomersGroup).
func (s *Service) Group() httpapi.Group {
	return CustomersGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/customers":                                      s.create,
		"GET /v1/customers":                                       s.list,
		"GET /v1/customers/{id}":                                  s.get,
		"POST /v1/customers/{id}":                                 s.update,
		"GET /v1/customers/{id}/transactions":                     s.transactions,
		"GET /v1/customers/{id}/card-tokens":                      s.tokens,
		"DELETE /v1/customers/{id}/card-tokens/{token_id}":        s.deleteToken,
		"POST /v1/payments/recurring":                             s.recurring,
		"GET /v2/storedPaymentMethods":                            s.adyenStoredMethods,
		"DELETE /v2/storedPaymentMethods/{storedPaymentMethodId}": s.adyenDisableStored,
	})
}

// CreateRequest is the body of POST /v1/customers (optional: no body is {}).
type CreateRequest struct {
	ExternalRef string            `json:"external_ref"`
	Email       string            `json:"email" maxlen:"254"`
	Name        string            `json:"name"`
	Description string            `json:"description" maxlen:"500"`
	Metadata    map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var body CreateRequest
	if len(r.Body) > 0 {
		if err := r.Decode(&body); err != nil {
			return nil, err
		}
	}
	c, err := s.Create(r.HTTP.Context(), CreateInput{AccountID: r.AccountID(), Livemode: !r.TestMode(), ExternalRef: body.ExternalRef,
		Email: body.Email, Name: body.Name, Description: body.Description, Metadata: body.Metadata, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindCustomer, c), nil
}

// UpdateRequest is the body of POST /v1/customers/{id} (optional: no body
// is {}, which changes nothing). Every field is optional; "" removes a
// text field or the default card token; metadata merges (a key set to ""
// is removed). external_ref never changes (checkout's shopperReference of
// the customer's cards): it is an unknown field here.
type UpdateRequest struct {
	Email              *string           `json:"email" maxlen:"254"`
	Name               *string           `json:"name" maxlen:"256"`
	Description        *string           `json:"description" maxlen:"500"`
	Metadata           map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
	DefaultCardTokenID *string           `json:"default_card_token_id" maxlen:"64"`
}

func (s *Service) update(r *httpapi.Request) (*httpapi.Response, error) {
	var body UpdateRequest
	if len(r.Body) > 0 {
		if err := r.Decode(&body); err != nil {
			return nil, err
		}
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	c, err := s.Update(r.HTTP.Context(), UpdateInput{AccountID: r.AccountID(), ID: id, Email: body.Email, Name: body.Name,
		Description: body.Description, Metadata: body.Metadata, DefaultCardTokenID: body.DefaultCardTokenID, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindCustomer, c), nil
}

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	c, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindCustomer, c), nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if f.Email = r.Query("email"); f.Email != "" {
		if err := checkOptionalEmail("email", f.Email); err != nil {
			return nil, err
		}
	}
	if f.ExternalRef = r.Query("external_ref"); f.ExternalRef != "" {
		if err := checkExternalRef("external_ref", f.ExternalRef, false); err != nil {
			return nil, err
		}
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindCustomer, items, next), nil
}

func (s *Service) transactions(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	items, next, err := s.Transactions(r.HTTP.Context(), r.AccountID(), id, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(transactions.Kind, items, next), nil
}

func (s *Service) tokens(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	items, next, err := s.Tokens(r.HTTP.Context(), r.AccountID(), id, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindCardToken, items, next), nil
}

func (s *Service) deleteToken(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	tokenID := r.PathValue("token_id")
	if err := checkTokenID("token_id", tokenID); err != nil {
		return nil, err
	}
	d, err := s.DeleteToken(r.HTTP.Context(), r.AccountID(), id, tokenID)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindDeleted, d), nil
}

// Amount is the amount a recurring charge's request sends: money.Amount's
// fields as pointers, so a missing one is told from a zero one (the
// answer names which is missing).
type Amount struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// RecurringRequest is the body of POST /v1/payments/recurring. OffSession
// exists from version 2023-09-01 (version.go).
type RecurringRequest struct {
	CardTokenID    string            `json:"card_token_id" maxlen:"64"`
	CustomerID     string            `json:"customer_id" maxlen:"36"`
	Amount         *Amount           `json:"amount"`
	OrderReference string            `json:"order_reference" maxlen:"128"`
	RecurringType  string            `json:"recurring_type" maxlen:"16"`
	OffSession     *bool             `json:"off_session"`
	Capture        string            `json:"capture" maxlen:"16"`
	Description    string            `json:"description" maxlen:"500"`
	ReturnURL      *string           `json:"return_url" maxlen:"1024"` // sent empty: refused, not absent
	Metadata       map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

func (s *Service) recurring(r *httpapi.Request) (*httpapi.Response, error) {
	var body RecurringRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	returnURL := ""
	if body.ReturnURL != nil {
		if returnURL = *body.ReturnURL; returnURL == "" {
			return nil, apierr.Invalidf("return_url", "return_url must be an absolute URL of at most %d characters; leave it out when there is none", MaxReturnURL)
		}
	}
	in := RecurringInput{AccountID: r.AccountID(), TestMode: r.TestMode(), CardTokenID: body.CardTokenID, CustomerID: body.CustomerID,
		OrderReference: body.OrderReference, RecurringType: RecurringType(body.RecurringType), OffSession: body.OffSession,
		Capture: payments.CaptureMode(body.Capture), Description: body.Description, ReturnURL: returnURL,
		Metadata: body.Metadata, RequestID: r.ID, Idem: r.Idem()}
	switch {
	case body.Amount == nil:
		return nil, apierr.Missing("amount")
	case body.Amount.Value == nil:
		return nil, apierr.Missing("amount.value")
	case body.Amount.Currency == nil:
		return nil, apierr.Missing("amount.currency")
	}
	in.Amount, in.Currency = *body.Amount.Value, *body.Amount.Currency
	p, err := s.Recurring(r.HTTP.Context(), in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(transactions.Kind, p), nil
}
