package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/paygate/paygate/shared/aws/dynamostore"
)

func init() {
	register(command{Name: "tables create", Summary: "create the missing DynamoDB tables (DynamoDB Local, dev)", Flags: tablesCreate})
}

func tablesCreate(*flag.FlagSet) action {
	return func(ctx context.Context, e *env) error {
		if e.Store != "dynamodb" {
			return usagef("tables create works on --store dynamodb; the embedded store creates its tables itself")
		}
		client, err := e.Dynamo(ctx)
		if err != nil {
			return err
		}
		tables, err := e.Tables()
		if err != nil {
			return err
		}
		if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
			return err
		}
		return e.print(struct {
			Tables map[string]string `json:"tables"`
		}{tables}, func(w io.Writer) {
			fmt.Fprintln(w, "tables ready:")
			logical := make([]string, 0, len(tables))
			for l := range tables {
				logical = append(logical, l)
			}
			slices.Sort(logical)
			for _, l := range logical {
				fmt.Fprintf(w, "  %-12s %s\n", l, tables[l])
			}
		})
	}
}
