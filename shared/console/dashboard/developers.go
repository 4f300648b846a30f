package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Developers: a webhook endpoint's edit, disable and enable, and secret
// roll; the event log with its filters, an event's payload and deliveries,
// and its resend. All through the webhooks service, as the API's
// /v1/webhook-endpoints and /v1/events.

// developerRoutes are the handlers of the webhook endpoint settings, the
// event log and the test/live switch (declared in DashboardGroup).
func (s *Service) developerRoutes() map[string]httpapi.Handler {
	return map[string]httpapi.Handler{
		"POST /dashboard/developers/webhooks/{id}/update":      s.form(false, s.updateEndpoint),
		"POST /dashboard/developers/webhooks/{id}/disable":     s.form(false, s.endpointState(true)),
		"POST /dashboard/developers/webhooks/{id}/enable":      s.form(false, s.endpointState(false)),
		"POST /dashboard/developers/webhooks/{id}/roll-secret": s.form(false, s.rollEndpointSecret),
		"GET /dashboard/developers/events":                     s.page(s.eventsPage),
		"GET /dashboard/developers/events/{id}":                s.page(s.eventPage),
		"POST /dashboard/developers/events/{id}/resend":        s.form(false, s.resendEvent),
		"POST /dashboard/switch-account":                       s.form(true, s.switchAccount),
	}
}

func (s *Service) caller(c *call) (webhooks.Caller, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return webhooks.Caller{}, err
	}
	return webhooks.Caller{AccountID: acct.ID, Live: acct.Mode == accounts.Live}, nil
}

// eventList reads a comma-separated list of event types ("*" for all).
func eventList(raw string) []string {
	var evs []string
	for _, e := range strings.Split(raw, ",") {
		if e = strings.TrimSpace(e); e != "" {
			evs = append(evs, e)
		}
	}
	return evs
}

func endpointBack(id string) string { return "/dashboard/developers/webhooks/" + url.PathEscape(id) }

// updateEndpoint changes an endpoint's url, description and events.
func (s *Service) updateEndpoint(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	wc, err := s.caller(c)
	if err != nil {
		return nil, err
	}
	u, desc := strings.TrimSpace(c.form.Get("url")), c.form.Get("description")
	in := webhooks.UpdateInput{ID: id, URL: &u, Description: &desc, EnabledEvents: eventList(c.form.Get("events"))}
	if in.EnabledEvents == nil {
		in.EnabledEvents = []string{} // none: refused by the service, as on the API
	}
	err = s.audited(c, "webhook_endpoint.update", id, u+" · "+strings.Join(in.EnabledEvents, ","), func(ctx context.Context) (string, error) {
		_, err := s.webhooks.Update(ctx, wc, in)
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return redirect(endpointBack(id), nil), nil
}

// endpointState disables or enables an endpoint (enabling clears the
// pipeline's disabled reason, as the API's update does).
func (s *Service) endpointState(disabled bool) handler {
	return func(c *call) (*httpapi.Response, error) {
		id := c.r.PathValue("id")
		wc, err := s.caller(c)
		if err != nil {
			return nil, err
		}
		action := "webhook_endpoint.enable"
		if disabled {
			action = "webhook_endpoint.disable"
		}
		err = s.audited(c, action, id, "", func(ctx context.Context) (string, error) {
			_, err := s.webhooks.Update(ctx, wc, webhooks.UpdateInput{ID: id, Disabled: &disabled})
			return "", err
		})
		if err != nil {
			return nil, err
		}
		return redirect(endpointBack(id), nil), nil
	}
}

// rollEndpointSecret gives the endpoint a new secret, shown once on the
// page this form answers; the old one signs beside it for the expiry the
// owner picked (webhooks.MaxExpireOld at most), as the API's roll.
func (s *Service) rollEndpointSecret(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	secs, err := strconv.Atoi(c.form.Get("expires_in"))
	if err != nil || secs < 0 || time.Duration(secs)*time.Second > webhooks.MaxExpireOld {
		return nil, apierr.Invalidf("expires_in", "expires_in must be 0 to %d seconds", int(webhooks.MaxExpireOld/time.Second))
	}
	wc, err := s.caller(c)
	if err != nil {
		return nil, err
	}
	idem, err := s.idemCall(c, c.form.Get("expires_in"))
	if replayed(err) {
		return redirect(endpointBack(id), nil), nil
	}
	if err != nil {
		return nil, err
	}
	keep := time.Duration(secs) * time.Second
	var out *webhooks.WithSecret
	err = s.audited(c, "webhook_endpoint.roll_secret", id, "old secret works "+strconv.Itoa(secs)+" s more", func(ctx context.Context) (_ string, err error) {
		out, err = s.webhooks.RollSecret(ctx, wc, webhooks.RollInput{ID: id, ExpireOldAfter: &keep, Idem: idem})
		return "", err
	})
	if replayed(err) {
		return redirect(endpointBack(id), nil), nil
	}
	if err != nil {
		return nil, err
	}
	c.v.Notice = "Secret rolled."
	return s.endpointView(c, http.StatusOK, out.Shown())
}

// --- the event log

// eventRange reads a date filter (YYYY-MM-DD, UTC): from is the day's
// start, to its end.
func eventRange(q url.Values, name string, end bool) (time.Time, error) {
	raw := strings.TrimSpace(q.Get(name))
	if raw == "" {
		return time.Time{}, nil
	}
	d, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		return time.Time{}, apierr.Invalidf(name, "%s is a date, YYYY-MM-DD", name)
	}
	if end {
		d = d.Add(24*time.Hour - time.Second)
	}
	return d, nil
}

func (s *Service) eventsPage(c *call) (*httpapi.Response, error) {
	q := c.r.HTTP.URL.Query()
	f := webhooks.EventFilter{Type: q.Get("type"), ObjectID: strings.TrimSpace(q.Get("object_id"))}
	if f.ObjectID != "" && !pathValue.MatchString(f.ObjectID) {
		return nil, apierr.Invalidf("object_id", "object_id must be 1 to 100 letters, digits and _ . : -")
	}
	var err error
	if f.From, err = eventRange(q, "from", false); err != nil {
		return nil, err
	}
	if f.To, err = eventRange(q, "to", true); err != nil {
		return nil, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return nil, apierr.Invalidf("to", "to is before from")
	}
	evs, next, err := s.webhooks.Events(c.ctx(), c.account(), f, 25, q.Get("cursor"))
	if err != nil {
		return nil, err
	}
	nq := url.Values{}
	for _, k := range []string{"type", "object_id", "from", "to"} {
		if v := q.Get(k); v != "" {
			nq.Set(k, v)
		}
	}
	nq.Set("cursor", next)
	c.v.Title, c.v.Nav = "Events", "events"
	c.v.Data = map[string]any{"Events": evs, "Types": eventlog.Types(), "Type": f.Type, "ObjectID": f.ObjectID, "From": q.Get("from"), "To": q.Get("to"),
		"Next": next, "NextQuery": nextQuery(nq)}
	return render(http.StatusOK, "events", c.v, nil)
}

// endpointAttempts are one endpoint's attempts at delivering an event.
type endpointAttempts struct {
	Endpoint webhooks.View
	Attempts []webhooks.Attempt
}

func (s *Service) eventPage(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	ev, err := s.webhooks.Event(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	eps, _, err := s.webhooks.List(c.ctx(), c.account(), webhooks.MaxEndpoints, "")
	if err != nil {
		return nil, err
	}
	// Each endpoint's newest attempts, this event's among them: an
	// account holds at most MaxEndpoints endpoints.
	var per []endpointAttempts
	for _, ep := range eps {
		atts, _, err := s.webhooks.Attempts(c.ctx(), c.account(), ep.ID, 100, "")
		if err != nil {
			return nil, err
		}
		mine := slices.DeleteFunc(atts, func(a webhooks.Attempt) bool { return a.EventID != ev.ID })
		per = append(per, endpointAttempts{Endpoint: ep, Attempts: mine})
	}
	payload, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return nil, apierr.Wrap("dashboard.event", apierr.Internal, err)
	}
	c.v.Title, c.v.Nav = "Event "+ev.ID, "events"
	c.v.Data = map[string]any{"Event": ev, "Payload": string(payload), "Endpoints": per}
	return render(http.StatusOK, "event", c.v, nil)
}

// resendEvent queues the event again: to one endpoint when the form names
// one, else to every endpoint subscribed to its type now.
func (s *Service) resendEvent(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	ep := c.form.Get("endpoint_id")
	detail := "to every subscribed endpoint"
	if ep != "" {
		detail = "to endpoint " + ep
	}
	err := s.audited(c, "webhook_event.resend", id, detail, func(ctx context.Context) (string, error) {
		_, err := s.webhooks.Resend(ctx, c.account(), id, ep)
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/developers/events/"+url.PathEscape(id), nil), nil
}
