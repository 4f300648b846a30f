package checkout

import (
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// manualCaptureKey is Adyen's additionalData entry that asks for manual
// capture (AdditionalDataCommon.manualCapture), the way Adyen's libraries
// already send it.
const manualCaptureKey = "manualCapture"

// captureModeOf reads the capture mode from Adyen's additionalData: "true"
// holds the authorisation until the merchant captures or cancels it (or it
// expires after payments.AuthorizationTTL); "false" or absent captures the
// whole amount with the authorisation, as Adyen's default immediate capture
// does.
func captureModeOf(additionalData map[string]string) (payments.CaptureMode, error) {
	switch v, ok := additionalData[manualCaptureKey]; {
	case !ok || v == "false":
		return payments.CaptureAutomatic, nil
	case v == "true":
		return payments.CaptureManual, nil
	}
	return "", apierr.Invalidf("additionalData."+manualCaptureKey, `additionalData.manualCapture must be "true" or "false"`)
}

// sessionCaptureMode is the mode of a session's payments: the merchant's
// choice when it created the session. A payment sent from the shopper's
// browser cannot change it, so one that names it is refused. Sessions stored
// before modes existed capture automatically, like every new default.
func sessionCaptureMode(s *Session, in *PaymentRequest) (payments.CaptureMode, error) {
	if _, sent := in.AdditionalData[manualCaptureKey]; sent {
		return "", invalid("additionalData."+manualCaptureKey, CodeCaptureModeFixed,
			"a session's payments take the capture mode the session was created with; set additionalData.manualCapture on POST /v2/sessions")
	}
	if s.CaptureMode == "" {
		return payments.CaptureAutomatic, nil
	}
	return s.CaptureMode, nil
}
