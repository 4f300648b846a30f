package dynamostore

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store"
)

// Stream images. A DynamoDB stream record (NEW_IMAGE) carries the item with
// the attributes this adapter writes (see the package comment); Lambda hands
// it over as events.DynamoDBAttributeValue. ItemFromImage reads it back into
// the store.Item that was written; Image builds the very same layout from an
// item (its body unpacked, for the embedded change feed's runner,
// app.FeedRunner), so one decoder serves a consumer on AWS and under make
// run.

// Image is the NEW_IMAGE DynamoDB Streams would carry for it: pk, sk, data
// (binary, absent when empty) or, with packing, dz (the body packed, as the
// adapter writes a large one), n, v, and ttl (absent when it never expires).
//
// Without packing the body is always data, the layout the adapter writes
// for any body below packThreshold, which ItemFromImage reads the same way.
// The embedded feed's runner asks for that: there the body was never packed
// (the embedded store keeps bodies as they are), and deflating a copy only
// for the consumer to inflate it again was a quarter of the local gateway's
// CPU under card payments (issue 33's profiles), a cost no Lambda pays.
func Image(it store.Item, packing bool) map[string]events.DynamoDBAttributeValue {
	img := ImageKeys(it.Key)
	var packed []byte
	if packing {
		packed, packing = pack(it.Data)
	}
	if packing {
		img[attrPacked] = events.NewBinaryAttribute(packed)
	} else if len(it.Data) > 0 {
		img[attrData] = events.NewBinaryAttribute(it.Data)
	}
	img[attrN] = events.NewNumberAttribute(strconv.FormatInt(it.N, 10))
	img[attrV] = events.NewNumberAttribute(strconv.FormatInt(it.Version, 10))
	if !it.ExpiresAt.IsZero() {
		img[attrTTL] = events.NewNumberAttribute(strconv.FormatInt(expirySeconds(it.ExpiresAt), 10))
	}
	return img
}

// ImageKeys is a stream record's Keys: pk and sk.
func ImageKeys(k store.Key) map[string]events.DynamoDBAttributeValue {
	return map[string]events.DynamoDBAttributeValue{
		attrPK: events.NewStringAttribute(k.PK),
		attrSK: events.NewStringAttribute(k.SK),
	}
}

// KeyFromImage is the key a stream record's Keys name (its table unset, as
// ItemFromImage's); a key attribute of another type reads as "".
func KeyFromImage(keys map[string]events.DynamoDBAttributeValue) store.Key {
	str := func(name string) string {
		if av, ok := keys[name]; ok && av.DataType() == events.DataTypeString {
			return av.String()
		}
		return ""
	}
	return store.Key{PK: str(attrPK), SK: str(attrSK)}
}

// ItemFromImage turns a stream record's NewImage back into the item the
// adapter wrote: key, Data byte for byte, N, Version and expiry. An image
// carries no table, so Key.Table is empty: the caller knows which table it
// consumes. An empty image (a REMOVE record) or one that is not this
// adapter's layout is an error.
func ItemFromImage(img map[string]events.DynamoDBAttributeValue) (store.Item, error) {
	if len(img) == 0 {
		return store.Item{}, fmt.Errorf("%w: empty image (a REMOVE record has none)", errBadItem)
	}
	m := make(map[string]types.AttributeValue, len(img))
	for name, want := range map[string]events.DynamoDBDataType{
		attrPK: events.DataTypeString, attrSK: events.DataTypeString, attrData: events.DataTypeBinary,
		attrPacked: events.DataTypeBinary, attrN: events.DataTypeNumber, attrV: events.DataTypeNumber, attrTTL: events.DataTypeNumber,
	} {
		av, ok := img[name]
		if !ok {
			continue
		}
		// The accessors of events.DynamoDBAttributeValue panic on another
		// type: check first.
		if av.DataType() != want {
			return store.Item{}, fmt.Errorf("%w: attribute %s is not of the type the adapter writes", errBadItem, name)
		}
		switch want {
		case events.DataTypeString:
			m[name] = &types.AttributeValueMemberS{Value: av.String()}
		case events.DataTypeBinary:
			m[name] = &types.AttributeValueMemberB{Value: av.Binary()}
		default:
			m[name] = &types.AttributeValueMemberN{Value: av.Number()}
		}
	}
	it, err := decode("", m)
	if err != nil {
		return store.Item{}, err
	}
	if it.Version < 1 {
		return store.Item{}, fmt.Errorf("%w at %s: no version", errBadItem, it.Key)
	}
	return *it, nil
}
