package disputes

import (
	"mime"
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the DisputesFunction's routes (declared in DisputesGroup).
func (s *Service) Group() httpapi.Group {
	return DisputesGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/disputes":                             s.list,
		"GET /v1/disputes/{id}":                        s.getRoute,
		"POST /v1/disputes/{id}/accept":                s.accept,
		"POST /v1/disputes/{id}/evidence":              s.evidence,
		"GET /v1/disputes/{id}/evidence/{document_id}": s.document,
		"POST /v1/disputes/{id}/submit":                s.submit,
		"POST /test-helpers/transactions/{id}/dispute": s.open,
	})
}

func (s *Service) getRoute(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	d, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, d), nil
}

// document answers an evidence document's bytes as they were sent, with
// their content type, as an attachment named as the document.
func (s *Service) document(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	docID, err := r.PathID("document_id")
	if err != nil {
		return nil, err
	}
	d, data, err := s.Document(r.HTTP.Context(), r.AccountID(), id, docID)
	if err != nil {
		return nil, err
	}
	resp := httpapi.Bytes(http.StatusOK, d.ContentType, data)
	resp.Headers = http.Header{"Content-Disposition": {mime.FormatMediaType("attachment", map[string]string{"filename": d.Name})}}
	return resp, nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !Status(st).Valid() {
			return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
		}
		f.Status = Status(st)
	}
	if tx := r.Query("transaction_id"); tx != "" {
		if _, err := ids.ParseField("transaction_id", tx); err != nil {
			return nil, err
		}
		f.TransactionID = tx
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

// emptyBody is the body of accept and submit: none, or {}.
type emptyBody struct{}

// action decodes an optional empty body, then reads the path id: a
// malformed body is named first, as on every route.
func action(r *httpapi.Request) (ActionInput, error) {
	in := ActionInput{AccountID: r.AccountID(), Idem: r.Idem()}
	if len(r.Body) > 0 {
		var b emptyBody
		if err := r.Decode(&b); err != nil {
			return in, err
		}
	}
	var err error
	in.ID, err = r.PathID("id")
	return in, err
}

func (s *Service) accept(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := action(r)
	if err != nil {
		return nil, err
	}
	return render(s.Accept(r.HTTP.Context(), in))
}

func (s *Service) submit(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := action(r)
	if err != nil {
		return nil, err
	}
	return render(s.Submit(r.HTTP.Context(), in))
}

// EvidenceRequest is the body of POST /v1/disputes/{id}/evidence.
type EvidenceRequest struct {
	Description *string           `json:"description" maxlen:"20000" chars:"text"`
	Documents   []DocumentRequest `json:"documents"`
	Metadata    map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

func (s *Service) evidence(r *httpapi.Request) (*httpapi.Response, error) {
	var body EvidenceRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	return render(s.AddEvidence(r.HTTP.Context(), EvidenceInput{AccountID: r.AccountID(), ID: id, Description: body.Description,
		Documents: body.Documents, Metadata: body.Metadata, Idem: r.Idem()}))
}

// OpenRequest is the optional body of the sandbox's dispute helper.
type OpenRequest struct {
	Amount *int64  `json:"amount"`             // minor units of the payment's currency; default: what is left of it
	Reason *string `json:"reason" maxlen:"32"` // default general
	DueBy  *string `json:"due_by" maxlen:"64"` // RFC 3339; default 7 days from now, at most 30
}

func (s *Service) open(r *httpapi.Request) (*httpapi.Response, error) {
	var body OpenRequest
	if len(r.Body) > 0 {
		if err := r.Decode(&body); err != nil {
			return nil, err
		}
	}
	in := OpenInput{AccountID: r.AccountID(), TestMode: r.TestMode(), Amount: body.Amount, Idem: r.Idem()}
	if body.Reason != nil {
		if in.Reason = Reason(*body.Reason); !in.Reason.Valid() {
			return nil, apierr.Invalidf("reason", "reason must be one of %v", Reasons)
		}
	}
	if body.DueBy != nil {
		t, err := time.Parse(time.RFC3339, *body.DueBy)
		if err != nil {
			return nil, apierr.Invalidf("due_by", "due_by must be an RFC 3339 date-time, e.g. 2024-01-22T10:00:00Z")
		}
		in.DueBy = &t
	}
	var err error
	if in.TransactionID, err = r.PathID("id"); err != nil {
		return nil, err
	}
	d, err := s.Open(r.HTTP.Context(), in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(Kind, d), nil
}

func render(d *Dispute, err error) (*httpapi.Response, error) {
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, d), nil
}
