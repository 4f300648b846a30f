package webhooks

import (
	"bytes"
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// EndpointsRoutes is the WebhookEndpointsFunction's routes (declared in
// EndpointsGroup).
func (s *Service) EndpointsRoutes() httpapi.Group {
	return EndpointsGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/webhook-endpoints":                  s.handleCreate,
		"GET /v1/webhook-endpoints":                   s.handleList,
		"GET /v1/webhook-endpoints/{id}":              s.handleGet,
		"POST /v1/webhook-endpoints/{id}":             s.handleUpdate,
		"DELETE /v1/webhook-endpoints/{id}":           s.handleDelete,
		"POST /v1/webhook-endpoints/{id}/roll-secret": s.handleRoll,
		"GET /v1/webhook-endpoints/{id}/deliveries":   s.handleDeliveries,
	})
}

// EventsRoutes is the EventsFunction's routes (declared in EventsGroup).
func (s *Service) EventsRoutes() httpapi.Group {
	return EventsGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/events":              s.handleEvents,
		"GET /v1/events/{id}":         s.handleEvent,
		"POST /v1/events/{id}/resend": s.handleResend,
	})
}

func caller(r *httpapi.Request) Caller {
	return Caller{AccountID: r.AccountID(), Live: !r.TestMode()}
}

// createRequest is the body of POST /v1/webhook-endpoints.
type createRequest struct {
	URL           string            `json:"url" maxlen:"2048"`
	EnabledEvents []string          `json:"enabled_events" maxlen:"64"`
	APIVersion    string            `json:"api_version" maxlen:"10"`
	Description   string            `json:"description" maxlen:"500"`
	Metadata      map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
	Format        string            `json:"format" maxlen:"10"`
}

func (s *Service) handleCreate(r *httpapi.Request) (*httpapi.Response, error) {
	var in createRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.URL == "" {
		return nil, apierr.Missing("url")
	}
	if in.EnabledEvents == nil {
		return nil, apierr.Missing("enabled_events")
	}
	out, err := s.Create(r.HTTP.Context(), caller(r), CreateInput{
		URL: in.URL, EnabledEvents: in.EnabledEvents, APIVersion: in.APIVersion, Description: in.Description,
		Metadata: in.Metadata, Format: in.Format, Idem: r.Idem(),
	})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindEndpoint, out), nil
}

func (s *Service) handleList(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	views, next, err := s.List(r.HTTP.Context(), r.AccountID(), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindEndpoint, views, next), nil
}

func (s *Service) handleGet(r *httpapi.Request) (*httpapi.Response, error) {
	e, err := s.Get(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindEndpoint, e.View()), nil
}

// updateRequest is the body of POST /v1/webhook-endpoints/{id}: every field
// optional, absent ones unchanged.
type updateRequest struct {
	URL           *string           `json:"url" maxlen:"2048"`
	EnabledEvents []string          `json:"enabled_events" maxlen:"64"`
	APIVersion    *string           `json:"api_version" maxlen:"10"`
	Description   *string           `json:"description" maxlen:"500"`
	Metadata      map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
	Disabled      *bool             `json:"disabled"`
}

func (s *Service) handleUpdate(r *httpapi.Request) (*httpapi.Response, error) {
	var in updateRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	v, err := s.Update(r.HTTP.Context(), caller(r), UpdateInput{
		ID: r.PathValue("id"), URL: in.URL, EnabledEvents: in.EnabledEvents, APIVersion: in.APIVersion,
		Description: in.Description, Metadata: in.Metadata, Disabled: in.Disabled,
	})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindEndpoint, v), nil
}

func (s *Service) handleDelete(r *httpapi.Request) (*httpapi.Response, error) {
	d, err := s.Delete(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return httpapi.OK("", d), nil
}

// rollRequest is the body of POST /v1/webhook-endpoints/{id}/roll-secret;
// the body may be left out.
type rollRequest struct {
	// ExpireOldAfter is in seconds.
	ExpireOldAfter *int64 `json:"expire_old_after"`
}

func (s *Service) handleRoll(r *httpapi.Request) (*httpapi.Response, error) {
	var in rollRequest
	if len(bytes.TrimSpace(r.Body)) > 0 {
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
	}
	roll := RollInput{ID: r.PathValue("id"), Idem: r.Idem()}
	if in.ExpireOldAfter != nil {
		if *in.ExpireOldAfter < 0 || *in.ExpireOldAfter > int64(MaxExpireOld/time.Second) {
			return nil, apierr.Invalidf("expire_old_after", "expire_old_after must be 0 to %d seconds", int64(MaxExpireOld/time.Second))
		}
		d := time.Duration(*in.ExpireOldAfter) * time.Second
		roll.ExpireOldAfter = &d
	}
	out, err := s.RollSecret(r.HTTP.Context(), caller(r), roll)
	if err != nil {
		return nil, err
	}
	return &httpapi.Response{Status: http.StatusOK, Kind: KindEndpoint, Body: out}, nil
}

func (s *Service) handleEvents(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	f := EventFilter{Type: r.Query("type")}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	evs, next, err := s.Events(r.HTTP.Context(), r.AccountID(), f, p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindEvent, evs, next), nil
}

func (s *Service) handleEvent(r *httpapi.Request) (*httpapi.Response, error) {
	ev, err := s.Event(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindEvent, ev), nil
}

func (s *Service) handleDeliveries(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	as, next, err := s.Attempts(r.HTTP.Context(), r.AccountID(), r.PathValue("id"), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindAttempt, as, next), nil
}

// resendRequest is the body of POST /v1/events/{id}/resend; the body may be
// left out.
type resendRequest struct {
	EndpointID *string `json:"endpoint_id" maxlen:"35"`
}

func (s *Service) handleResend(r *httpapi.Request) (*httpapi.Response, error) {
	var in resendRequest
	if len(bytes.TrimSpace(r.Body)) > 0 {
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
	}
	endpoint := ""
	if in.EndpointID != nil {
		// Given, it must name an endpoint: "" is not "every endpoint".
		if !ids.ValidPrefixed("we", *in.EndpointID) {
			return nil, apierr.Invalidf("endpoint_id", "endpoint_id must be a webhook endpoint id (we_ and 32 hex digits); leave it out to resend to every subscribed endpoint")
		}
		endpoint = *in.EndpointID
	}
	out, err := s.Resend(r.HTTP.Context(), r.AccountID(), r.PathValue("id"), endpoint)
	if err != nil {
		return nil, err
	}
	return &httpapi.Response{Status: http.StatusAccepted, Body: out}, nil
}
