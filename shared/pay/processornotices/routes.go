package processornotices

import (
	"net/http"

	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the ProcessorNoticesFunction's routes (declared in NoticesGroup).
func (s *Service) Group() httpapi.Group {
	return NoticesGroup.Bind(map[string]httpapi.Handler{
		"POST /webhooks/adyen/{connector_id}": s.adyen,
	})
}

// adyen takes an Adyen NotificationRequest, decoded strictly as every body
// is (Adyen's documented fields only), and answers "[accepted]" once every
// item is recorded.
func (s *Service) adyen(r *httpapi.Request) (*httpapi.Response, error) {
	var req adyen.NotificationRequest
	if err := r.Decode(&req); err != nil {
		return nil, err
	}
	if _, err := s.Receive(r.HTTP.Context(), r.PathValue("connector_id"), req); err != nil {
		return nil, err
	}
	return httpapi.Bytes(http.StatusOK, "text/plain; charset=utf-8", []byte(adyen.Accepted)), nil
}
