package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store"
)

// EnvVar is the environment variable naming the physical table of a logical
// one: TABLE_ + upper(logical), e.g. TABLE_ACCOUNTS.
func EnvVar(logical string) string { return "TABLE_" + strings.ToUpper(logical) }

// TablesFromEnv reads every table's physical name from the environment, as
// the SAM template passes them; a missing one is an error.
func TablesFromEnv(getenv func(string) string) (map[string]string, error) {
	tables := make(map[string]string, len(store.AllTables))
	var missing []string
	for _, t := range store.AllTables {
		name := getenv(EnvVar(t))
		if name == "" {
			missing = append(missing, EnvVar(t))
			continue
		}
		tables[t] = name
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("dynamostore: missing table names in %s", strings.Join(missing, ", "))
	}
	return tables, nil
}

// TablesWithPrefix names every table prefix + logical name.
func TablesWithPrefix(prefix string) map[string]string {
	tables := make(map[string]string, len(store.AllTables))
	for _, t := range store.AllTables {
		tables[t] = prefix + t
	}
	return tables
}

// createWait bounds the wait for one table to become ACTIVE.
const createWait = 2 * time.Minute

// CreateTables creates every missing table of tables (pk/sk strings,
// on-demand, TTL on "ttl"; store.StreamedTables stream NEW_IMAGE) and waits until
// each is ACTIVE. Existing tables are left as they are.
func CreateTables(ctx context.Context, client *dynamodb.Client, tables map[string]string) error {
	var created []string
	for logical, name := range tables {
		_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var nf *types.ResourceNotFoundException
		switch {
		case err == nil:
			continue
		case !errors.As(err, &nf):
			return fmt.Errorf("dynamostore: describe %s: %w", name, err)
		}
		in := &dynamodb.CreateTableInput{
			TableName:   aws.String(name),
			BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(attrSK), AttributeType: types.ScalarAttributeTypeS},
			},
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
			},
		}
		if store.Streamed(logical) {
			in.StreamSpecification = &types.StreamSpecification{
				StreamEnabled:  aws.Bool(true),
				StreamViewType: types.StreamViewTypeNewImage,
			}
		}
		var inUse *types.ResourceInUseException
		if _, err := client.CreateTable(ctx, in); err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("dynamostore: create %s: %w", name, err)
		}
		created = append(created, name)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 100*time.Millisecond, 2*time.Second
	})
	for _, name := range created {
		if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, createWait); err != nil {
			return fmt.Errorf("dynamostore: wait for %s: %w", name, err)
		}
		_, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{
				AttributeName: aws.String(attrTTL),
				Enabled:       aws.Bool(true),
			},
		})
		if err != nil {
			return fmt.Errorf("dynamostore: enable ttl on %s: %w", name, err)
		}
	}
	return nil
}
