package dynamostore

import (
	"context"
	"errors"
	"net/http"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// wrapErr turns an AWS error into an apierr: throttling, server errors and
// transport failures are Unavailable (safe to retry), the rest Internal.
func wrapErr(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return apierr.Wrap(op, apierr.Unavailable, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException",
			"RequestLimitExceeded", "LimitExceededException",
			"InternalServerError", "ServiceUnavailable", "TransactionInProgressException":
			return apierr.Wrap(op, apierr.Unavailable, err)
		case "TransactionConflictException":
			return apierr.Wrap(op, apierr.Conflict, err)
		}
		var resp *smithyhttp.ResponseError
		if errors.As(err, &resp) && resp.HTTPStatusCode() >= http.StatusInternalServerError {
			return apierr.Wrap(op, apierr.Unavailable, err)
		}
		return apierr.Wrap(op, apierr.Internal, err)
	}
	// No API error: the request never got an answer.
	return apierr.Wrap(op, apierr.Unavailable, err)
}
