package dynamostore

import (
	"context"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// CallCounter counts SDK calls per operation name (GetItem, Query, ...), one
// per call whatever the SDK's own retries; benchmarks use it to prove the
// round trips of a request.
type CallCounter struct {
	mu     sync.Mutex
	counts map[string]int
	units  Units
	puts   map[string]int // items put or updated, by physical table
}

// ItemsWritten is how many items the calls put or updated in the physical
// table so far (the cost table counts the events an operation commits).
func (c *CallCounter) ItemsWritten(table string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts[table]
}

// Units are the read and write capacity units a call consumed: what DynamoDB
// reports (ReturnConsumedCapacity TOTAL, which the counter asks for on every
// call), except for TransactWriteItems, whose units the counter computes by
// DynamoDB's published rule (two per item and started KB of the item as
// written; a check or delete, whose item it does not see, two): DynamoDB
// Local reports a transaction's units per table as if it held one item.
// On-demand tables are billed one request unit per capacity unit.
type Units struct{ Read, Write float64 }

// Units returns the capacity consumed so far.
func (c *CallCounter) Units() Units {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.units
}

// NewCallCounter returns an empty counter.
func NewCallCounter() *CallCounter { return &CallCounter{counts: map[string]int{}} }

// Register counts every call of clients built from cfg.
func (c *CallCounter) Register(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, c.addMiddleware)
}

// Option counts the calls of one client: dynamodb.NewFromConfig(cfg, c.Option()).
func (c *CallCounter) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, c.addMiddleware) }
}

// Counts returns a copy of the counts so far.
func (c *CallCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Reset forgets the counts so far.
func (c *CallCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.counts)
	c.units = Units{}
	clear(c.puts)
}

func (c *CallCounter) addMiddleware(stack *middleware.Stack) error {
	// Initialize runs once per call, before the retry loop.
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("paygateCallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.mu.Lock()
			c.counts[awsmiddleware.GetOperationName(ctx)]++
			c.mu.Unlock()
			askCapacity(in.Parameters)
			out, md, err := next.HandleInitialize(ctx, in)
			if err == nil {
				u := consumed(out.Result)
				if tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
					u = Units{Write: transactUnits(tx)}
				}
				c.mu.Lock()
				c.units.Read += u.Read
				c.units.Write += u.Write
				if c.puts == nil {
					c.puts = map[string]int{}
				}
				for _, t := range writtenTables(in.Parameters) {
					c.puts[t]++
				}
				c.mu.Unlock()
			}
			return out, md, err
		}), middleware.After)
}

// askCapacity sets ReturnConsumedCapacity TOTAL on the call's input.
func askCapacity(in any) {
	total := types.ReturnConsumedCapacityTotal
	switch p := in.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		p.ReturnConsumedCapacity = total
	}
}

// transactUnits is the write units of a transaction by DynamoDB's rule: 2
// per started KB of each item. An update's item is sized from its key and
// the values it sets (the adapter's updates write every attribute); a check
// or a delete counts as one KB.
func transactUnits(in *dynamodb.TransactWriteItemsInput) float64 {
	var units float64
	for _, it := range in.TransactItems {
		size := 1
		if u := it.Update; u != nil {
			size = attrSize(u.Key)
			for name, v := range u.ExpressionAttributeValues {
				if name == ":data" || name == ":dz" || name == ":num" || name == ":dlt" || name == ":ttl" || name == ":nv" {
					size += valueSize(v) + 4
				}
			}
		}
		units += 2 * float64((size+1023)/1024)
	}
	return units
}

func attrSize(m map[string]types.AttributeValue) int {
	n := 0
	for k, v := range m {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return len(x.Value)/2 + 1
	}
	return 1
}

// writtenTables lists the table of every item a write call puts or updates.
func writtenTables(in any) []string {
	switch p := in.(type) {
	case *dynamodb.PutItemInput:
		return []string{aws.ToString(p.TableName)}
	case *dynamodb.UpdateItemInput:
		return []string{aws.ToString(p.TableName)}
	case *dynamodb.TransactWriteItemsInput:
		var out []string
		for _, it := range p.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, aws.ToString(it.Put.TableName))
			case it.Update != nil:
				out = append(out, aws.ToString(it.Update.TableName))
			}
		}
		return out
	}
	return nil
}

// consumed sums the capacity an output reports.
func consumed(out any) Units {
	var ccs []types.ConsumedCapacity
	switch o := out.(type) {
	case *dynamodb.GetItemOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		ccs = one(o.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		ccs = o.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		ccs = o.ConsumedCapacity
	case *dynamodb.BatchGetItemOutput:
		ccs = o.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		ccs = o.ConsumedCapacity
	}
	var u Units
	for _, cc := range ccs {
		r, w := aws.ToFloat64(cc.ReadCapacityUnits), aws.ToFloat64(cc.WriteCapacityUnits)
		if r == 0 && w == 0 { // only the total given: reads and writes are told apart by the call
			switch out.(type) {
			case *dynamodb.GetItemOutput, *dynamodb.QueryOutput, *dynamodb.ScanOutput, *dynamodb.TransactGetItemsOutput, *dynamodb.BatchGetItemOutput:
				r = aws.ToFloat64(cc.CapacityUnits)
			default:
				w = aws.ToFloat64(cc.CapacityUnits)
			}
		}
		u.Read += r
		u.Write += w
	}
	return u
}

func one(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}
