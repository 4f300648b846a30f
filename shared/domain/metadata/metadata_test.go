package metadata_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestCheck(t *testing.T) {
	many := map[string]string{}
	for i := 0; i <= metadata.MaxKeys; i++ {
		many[fmt.Sprint("k", i)] = "v"
	}
	for name, c := range map[string]struct {
		md    map[string]string
		param string
	}{
		"none":                   {nil, ""},
		"at the limits":          {map[string]string{strings.Repeat("é", 40): strings.Repeat("é", 500)}, ""},
		"51 keys":                {many, "metadata"},
		"empty key":              {map[string]string{"": "v"}, "metadata"},
		"41-character key":       {map[string]string{strings.Repeat("k", 41): "v"}, "metadata"},
		"501-character value":    {map[string]string{"plan": strings.Repeat("v", 501)}, "metadata.plan"},
		"501 multi-byte symbols": {map[string]string{"plan": strings.Repeat("ü", 501)}, "metadata.plan"},
	} {
		t.Run(name, func(t *testing.T) {
			err := metadata.Check(c.md)
			if c.param == "" {
				assert.NoError(t, err)
				return
			}
			e := apierr.As(err)
			assert.Equal(t, apierr.Invalid, e.Kind)
			assert.Equal(t, c.param, e.Param)
			assert.Equal(t, "parameter_invalid", e.CodeOrDefault())
		})
	}
}
