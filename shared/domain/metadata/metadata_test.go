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

func TestMerge(t *testing.T) {
	md := map[string]string{"plan": "pro", "crm": "C-1", "team": "a"}
	got, err := metadata.Merge(md, map[string]string{"plan": "free", "crm": "", "new": "x", "absent": ""})
	assert.NoError(t, err)
	assert.Equal(t, map[string]string{"plan": "free", "team": "a", "new": "x"}, got, "set, removed, kept, added; removing an absent key is nothing")
	assert.Equal(t, map[string]string{"plan": "pro", "crm": "C-1", "team": "a"}, md, "the original is left as it is")

	got, err = metadata.Merge(nil, nil)
	assert.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got)
	got, err = metadata.Merge(md, map[string]string{"plan": "", "crm": "", "team": ""})
	assert.NoError(t, err)
	assert.Empty(t, got, "every key named with \"\" clears the map")

	full := map[string]string{}
	for i := range metadata.MaxKeys {
		full[fmt.Sprint("k", i)] = "v"
	}
	_, err = metadata.Merge(full, map[string]string{"one-more": "v"})
	e := apierr.As(err)
	assert.Equal(t, apierr.Invalid, e.Kind)
	assert.Equal(t, "metadata", e.Param)
	got, err = metadata.Merge(full, map[string]string{"one-more": "v", "k0": ""})
	assert.NoError(t, err, "a removal makes room in the same update")
	assert.Len(t, got, metadata.MaxKeys)
}
