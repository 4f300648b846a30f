package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Disputes: the list (status filter), a dispute's page with its timeline
// (opened, each document, submitted, closed) and evidence, and, while it
// needs a response, the evidence description, submit and accept forms,
// through the disputes service under the form's idempotency key. Evidence
// documents are added through the API (base64 in JSON): the dashboard's
// forms are url-encoded, and the page lists the documents sent.

func (s *Service) disputesPage(c *call) (*httpapi.Response, error) {
	st, p, err := listFilter(c, disputes.Statuses)
	if err != nil {
		return nil, err
	}
	items, next, err := s.disputes.List(c.ctx(), c.account(), disputes.Filter{Status: st}, p)
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Disputes", "disputes"
	c.v.Data = map[string]any{"Items": items, "Statuses": disputes.Statuses, "Status": string(st), "Next": next,
		"NextQuery": nextStatus(string(st), next)}
	return render(http.StatusOK, "disputes", c.v, nil)
}

func disputeTimeline(d *disputes.Dispute) []historyRow {
	rows := []historyRow{{d.CreatedAt, "Opened (" + string(d.Reason) + "): " + formatAmount(d.Amount.Value, d.Amount.Currency) +
		" and the fee of " + formatAmount(d.Fee.Value, d.Fee.Currency) + " held"}}
	for _, doc := range d.Evidence.Documents {
		rows = append(rows, historyRow{doc.CreatedAt, "Evidence document added: " + doc.Name})
	}
	if d.SubmittedAt != nil {
		rows = append(rows, historyRow{*d.SubmittedAt, "Evidence submitted: under review by the issuer"})
	}
	if d.ClosedAt != nil {
		rows = append(rows, historyRow{*d.ClosedAt, "Closed: " + string(d.Status) + " (" + string(d.ClosedReason) + ")"})
	}
	slices.SortStableFunc(rows, func(a, b historyRow) int { return a.At.Compare(b.At) })
	return rows
}

func (s *Service) disputeView(c *call, status int, evidence formState) (*httpapi.Response, error) {
	d, err := s.disputes.Get(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if evidence.Values == nil {
		evidence.Values = url.Values{"description": {d.Evidence.Description}}
	}
	open := d.Status == disputes.NeedsResponse && s.clock().Before(d.DueBy)
	c.v.Title, c.v.Nav = "Dispute "+d.ID, "disputes"
	c.v.Data = map[string]any{"D": d, "Timeline": disputeTimeline(d), "Open": open, "Evidence": evidence,
		"HasEvidence": d.Evidence.Description != "" || len(d.Evidence.Documents) > 0, "DueIn": d.DueBy.Sub(s.clock()).Round(time.Hour)}
	return render(status, "dispute", c.v, nil)
}

func (s *Service) disputePage(c *call) (*httpapi.Response, error) {
	return s.disputeView(c, http.StatusOK, formState{})
}

// disputeAction accepts or submits a dispute: the service decides whether
// its state allows it (a 409 page names the state when not).
func (s *Service) disputeAction(op string) handler {
	return func(c *call) (*httpapi.Response, error) {
		id := c.r.PathValue("id")
		back := "/dashboard/disputes/" + url.PathEscape(id)
		_, err := withIdem(s, c, "{}", audit{"dispute." + op, id, ""}, func(ctx context.Context, in idemIn) (*disputes.Dispute, error) {
			a := disputes.ActionInput{AccountID: c.account(), ID: id, Idem: in}
			if op == "accept" {
				return s.disputes.Accept(ctx, a)
			}
			return s.disputes.Submit(ctx, a)
		}, nil)
		if replayed(err) {
			return redirect(back, nil), nil
		}
		if err != nil {
			return nil, err
		}
		return redirect(back, nil), nil
	}
}

// disputeEvidence sets the evidence's description.
func (s *Service) disputeEvidence(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	back := "/dashboard/disputes/" + url.PathEscape(id)
	desc := c.form.Get("description")
	_, err := withIdem(s, c, map[string]string{"description": desc}, audit{"dispute.evidence", id, "description"}, func(ctx context.Context, in idemIn) (*disputes.Dispute, error) {
		return s.disputes.AddEvidence(ctx, disputes.EvidenceInput{AccountID: c.account(), ID: id, Description: &desc, Idem: in})
	}, nil)
	if replayed(err) {
		return redirect(back, nil), nil
	}
	if fs, ok := fieldError(err, c.form, map[string]string{"description": "description"}); ok && apierr.As(err).Kind == apierr.Invalid {
		c.v.Error = "The evidence was not saved: " + fs.Errors[firstKey(fs.Errors)]
		return s.disputeView(c, http.StatusBadRequest, fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect(back, nil), nil
}
