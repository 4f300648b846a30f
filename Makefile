# The two commands a fresh machine needs: `make run` and `make test`.
# Everything else is here for deploys, benchmarks and one-off invocations.
SHELL := /bin/bash
FUNCTIONS := $(notdir $(wildcard functions/*))
# Production build flags: static, stripped, no RPC shim (provided.al2023).
RELEASE_FLAGS := -trimpath -ldflags "-s -w" -tags lambda.norpc

.PHONY: build run test lint bench chaos memory invoke validate sam-build deploy deploy-built smoke smoke-local clean

## build: every function as bin/<dir>/bootstrap for linux/arm64
build:
	@set -e; for f in $(FUNCTIONS); do \
	  echo "build $$f"; \
	  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build $(RELEASE_FLAGS) -o bin/$$f/bootstrap ./functions/$$f; \
	done

## run: the whole API on 127.0.0.1:8080 (PORT) from the embedded store in ./.data (DATA_DIR)
run:
	go run ./infra/local

## test: everything CI runs (lint, go test -race against DynamoDB Local and moto, invoker, sam validate/build)
test:
	infra/scripts/test.sh

## lint: tracked files, gofmt, go vet, staticcheck, actionlint (the workflows)
lint:
	infra/scripts/lint.sh

## bench: benchmarks and load runs, printed as a table and written, dated, into docs/benchmarks.md (ARGS passes flags, e.g. make bench ARGS="-steps cost" rewrites only those steps' sections)
bench:
	infra/scripts/bench.sh $(ARGS)

## chaos: money workloads on DynamoDB Local and moto under injected faults and kill -9, checked (a table; exit 1 on any violation; the seed is printed, make chaos ARGS="-seed N" replays it)
chaos:
	infra/scripts/chaos.sh $(ARGS)

## memory: every function's peak RSS and CPU per invocation, and the MemorySize it should get (ARGS=-write sets them in its stack's template, infra/stacks)
memory:
	infra/scripts/memory.sh $(ARGS)

## invoke: run one function's real bootstrap with an event, e.g. make invoke FN=HealthFunction EVENT=events/health-get.json
invoke:
	@test -n "$(FN)" -a -n "$(EVENT)" || { echo "usage: make invoke FN=<LogicalId> EVENT=events/<file>.json"; exit 2; }
	go run ./infra/invoke -fn $(FN) -event $(EVENT)

## validate: sam validate --lint of template.yaml, each nested stack (infra/stacks) and the pipeline's roles
validate:
	infra/scripts/sam.sh validate --lint
	@set -e; for t in infra/stacks/*.yaml infra/pipeline/roles.yaml; do infra/scripts/sam.sh validate --lint -t $$t; done

## sam-build: sam build of every function of every stack into .aws-sam (what deploy ships)
sam-build:
	infra/scripts/sam.sh build

## deploy: sam build, then deploy one environment, e.g. make deploy ENV=dev [PARAMETERS="AlarmTopicArn=arn:..."]
deploy: sam-build deploy-built

## deploy-built: deploy what .aws-sam holds (the pipeline builds once and deploys that to every environment)
deploy-built:
	@case "$(ENV)" in dev|staging|prod) ;; *) echo "usage: make deploy ENV=dev|staging|prod"; exit 2;; esac
	PARAMETERS="$(PARAMETERS)" infra/scripts/deploy.sh $(ENV)

## smoke: the end-to-end smoke test against any base URL with a test-mode key, e.g. make smoke URL=https://... KEY=sk_test_...
smoke:
	@test -n "$(URL)" -a -n "$(KEY)" || { echo "usage: make smoke URL=<base url> KEY=sk_test_..."; exit 2; }
	go run ./infra/smoke -url "$(URL)" -key "$(KEY)"

## smoke-local: the smoke test and Adyen's Java library against the local gateway (make run's), started and stopped for them
smoke-local:
	infra/scripts/smoke-local.sh

clean:
	rm -rf bin .aws-sam
