package wallet

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestCheckIIN(t *testing.T) {
	for _, ok := range []string{iinValid, iinValid2, iinLeapDay, iinSecondPass, "991231307774", "010101500013"} {
		assert.NoError(t, CheckIIN(ok), ok)
	}
	for iin, why := range map[string]string{
		"900101300018":  "check digit off by one",
		"900101300010":  "check digit wrong",
		"900230300019":  "February 30th (check digit right)",
		"010229500426":  "2001-02-29, not a leap year (check digit right)",
		"901301300017":  "month 13",
		"900100300017":  "day 0",
		"900101000010":  "century digit 0",
		"900101700010":  "century digit 7",
		"90010131052":   "11 digits",
		"900101310520":  "first pass 10, second pass 10: no check digit exists",
		"9001013000177": "13 digits",
		"90010130001a":  "a letter",
		"":              "empty",
	} {
		err := CheckIIN(iin)
		if assert.Error(t, err, why) {
			e := apierr.As(err)
			assert.Equal(t, apierr.Invalid, e.Kind, why)
			assert.Equal(t, "iin", e.Param, why)
		}
	}
}

func TestCheckPhone(t *testing.T) {
	for _, ok := range []string{"+77011234567", "+12025550123", "+4915112345678", "+33612345678", "+861234567890123"} {
		assert.NoError(t, CheckPhone(ok), ok)
	}
	for _, bad := range []string{"77011234567", "87011234567", "+7701123456", "+770112345678", "+0123456789", "+1234567",
		"+1234567890123456", "+7 701 123 45 67", "+7-701-123-4567", "", "+"} {
		err := CheckPhone(bad)
		if assert.Error(t, err, bad) {
			assert.Equal(t, "phoneNumber", apierr.As(err).Param, bad)
		}
	}
}

func TestTransitionsTable(t *testing.T) {
	allowed := map[[2]Status]bool{
		{StatusNew, StatusProcessing}: true, {StatusNew, StatusSuccess}: true, {StatusNew, StatusFailed}: true, {StatusNew, StatusCancelled}: true,
		{StatusProcessing, StatusSuccess}: true, {StatusProcessing, StatusFailed}: true, {StatusProcessing, StatusCancelled}: true,
		{StatusSuccess, StatusCaptured}: true, {StatusSuccess, StatusCancelled}: true,
		{StatusCaptured, StatusPartiallyRefunded}: true, {StatusCaptured, StatusRefunded}: true,
		{StatusPartiallyRefunded, StatusPartiallyRefunded}: true, {StatusPartiallyRefunded, StatusRefunded}: true,
	}
	for _, from := range Statuses {
		for _, to := range Statuses {
			assert.Equal(t, allowed[[2]Status{from, to}], CanTransition(from, to), "%s -> %s", from, to)
		}
	}
}
