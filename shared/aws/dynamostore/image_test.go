package dynamostore_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/store"
)

// Image and ItemFromImage are inverse over every item the port can hold, and
// so with no packing.
func TestImageRoundTrip(t *testing.T) {
	for name, it := range map[string]store.Item{
		"plain":      {Key: store.Key{PK: "evt#a", SK: "evt_1"}, Data: []byte(`{"x":1}`), Version: 1},
		"packed":     {Key: store.Key{PK: "evt#a", SK: "evt_2"}, Data: []byte(`{"x":"` + strings.Repeat("payment ", 200) + `"}`), Version: 1},
		"no data":    {Key: store.Key{PK: "p", SK: "s"}, Version: 7},
		"any bytes":  {Key: store.Key{PK: "p", SK: "s"}, Data: []byte{0, 0xff, 0xfe, '\n'}, Version: 2},
		"int64 ends": {Key: store.Key{PK: "p", SK: "s"}, N: math.MinInt64, Version: math.MaxInt64},
		"expiry":     {Key: store.Key{PK: "p\u202e", SK: "🙂"}, N: 5, Version: 3, ExpiresAt: time.Unix(1900000000, 0).UTC()},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := dynamostore.ItemFromImage(dynamostore.Image(it, true))
			require.NoError(t, err)
			assert.Equal(t, it, got)
			if name == "packed" {
				assert.Contains(t, dynamostore.Image(it, true), "dz", "Image packs a large body as the adapter writes it")
			}
			plain := dynamostore.Image(it, false)
			assert.NotContains(t, plain, "dz", "no packing: the body as data")
			got, err = dynamostore.ItemFromImage(plain)
			require.NoError(t, err)
			assert.Equal(t, it, got)
		})
	}
}

func TestItemFromImageRefusesOtherLayouts(t *testing.T) {
	good := dynamostore.Image(store.Item{Key: store.Key{PK: "p", SK: "s"}, Data: []byte("d"), Version: 1}, true)
	with := func(name string, av events.DynamoDBAttributeValue) map[string]events.DynamoDBAttributeValue {
		img := map[string]events.DynamoDBAttributeValue{}
		for k, v := range good {
			img[k] = v
		}
		img[name] = av
		return img
	}
	without := func(name string) map[string]events.DynamoDBAttributeValue {
		img := with("x", events.NewNullAttribute())
		delete(img, name)
		return img
	}
	for name, img := range map[string]map[string]events.DynamoDBAttributeValue{
		"empty (REMOVE)":  nil,
		"data as string":  with("data", events.NewStringAttribute("d")),
		"dz of no format": with("dz", events.NewBinaryAttribute([]byte{7, 1, 2})),
		"dz not deflate":  with("dz", events.NewBinaryAttribute([]byte{1, 0xff, 0xff, 0xff})),
		"pk as number":    with("pk", events.NewNumberAttribute("1")),
		"n not an int64":  with("n", events.NewNumberAttribute("1e40")),
		"ttl as a string": with("ttl", events.NewStringAttribute("1")),
		"no sk":           without("sk"),
		"no version":      without("v"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := dynamostore.ItemFromImage(img)
			require.Error(t, err)
		})
	}
}
