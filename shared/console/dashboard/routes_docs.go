package dashboard

import (
	"net/http"
	"sync"

	"github.com/paygate/paygate/shared/console/dashboard/docsite"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// The documentation (/docs): the guides of docs/ and the API reference,
// public pages (no session, no key) sent with the dashboard's headers. The
// site is rendered on the first request for it, so a cold start of the
// dashboard's other pages does not pay for it.

var site = sync.OnceValues(docsite.Load)

func (s *Service) docsRoutes() map[string]httpapi.Handler {
	return map[string]httpapi.Handler{
		"GET /docs": docsPage(func(d *docsite.Site, _ *httpapi.Request) ([]byte, bool, error) {
			b, err := d.Index()
			return b, true, err
		}),
		"GET /docs/api": docsPage(func(d *docsite.Site, r *httpapi.Request) ([]byte, bool, error) {
			b, err := d.API(r.Query("q"))
			return b, true, err
		}),
		"GET /docs/{page}": docsPage(func(d *docsite.Site, r *httpapi.Request) ([]byte, bool, error) { return d.Guide(r.PathValue("page")) }),
	}
}

// docsPage answers a page of the site, or the 404 page when show finds
// none.
func docsPage(show func(*docsite.Site, *httpapi.Request) ([]byte, bool, error)) httpapi.Handler {
	return func(r *httpapi.Request) (*httpapi.Response, error) {
		if err := checkInput(r, nil); err != nil {
			return nil, err
		}
		d, err := site()
		if err != nil {
			return nil, apierr.Wrap("dashboard.docs", apierr.Internal, err)
		}
		body, found, err := show(d, r)
		status := http.StatusOK
		if err == nil && !found {
			status = http.StatusNotFound
			body, err = d.NotFound(r.PathValue("page"))
		}
		if err != nil {
			return nil, apierr.Wrap("dashboard.docs", apierr.Internal, err)
		}
		resp := httpapi.Bytes(status, "text/html; charset=utf-8", body)
		resp.Headers = headers()
		return resp, nil
	}
}
