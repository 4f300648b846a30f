#!/usr/bin/env bash
# deploy.sh ENV: deploy the built stack (.aws-sam, from `sam.sh build`) to
# one environment (dev, staging or prod) with its samconfig.toml settings,
# then print the API's base URL (and, under GitHub Actions, set the step
# output api_url).
#
# PARAMETERS adds parameter overrides that belong to the AWS account, not to
# the repository (AlarmTopicArn=arn:... DomainName=... CertificateArn=...):
# `sam deploy --parameter-overrides` replaces samconfig.toml's overrides
# rather than adding to them, so this script passes both.
#
# ARTIFACT_BUCKET and CFN_EXECUTION_ROLE_ARN (outputs of
# infra/pipeline/roles.yaml) make it upload to that bucket and have
# CloudFormation act with that role; unset, SAM's managed bucket and the
# caller's own permissions are used, as for a developer's `make deploy`.
#
# Credentials come from the caller (a profile locally, the environment's
# OIDC role in the pipeline). In CI (CI=true) the change set is not
# confirmed interactively: the gate before prod is the GitHub environment's
# required reviewers.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
ENV="${1:-}"
case "$ENV" in dev | staging | prod) ;; *)
	echo "usage: deploy.sh dev|staging|prod" >&2
	exit 2
	;;
esac
[[ -f .aws-sam/build/template.yaml ]] || {
	echo "deploy.sh: no .aws-sam/build: run infra/scripts/sam.sh build first" >&2
	exit 1
}

base=$(python3 - "$ENV" <<'PY'
import sys, tomllib
cfg = tomllib.load(open("samconfig.toml", "rb"))
print(cfg[sys.argv[1]]["deploy"]["parameters"]["parameter_overrides"])
PY
)
args=(deploy --config-env "$ENV" --parameter-overrides "$base ${PARAMETERS:-}")
if [[ -n "${ARTIFACT_BUCKET:-}" ]]; then
	args+=(--s3-bucket "$ARTIFACT_BUCKET")
fi
if [[ -n "${CFN_EXECUTION_ROLE_ARN:-}" ]]; then
	args+=(--role-arn "$CFN_EXECUTION_ROLE_ARN")
fi
if [[ "${CI:-}" == true ]]; then
	args+=(--no-confirm-changeset --no-progressbar)
fi
infra/scripts/sam.sh "${args[@]}"

stack=$(python3 -c 'import sys, tomllib; print(tomllib.load(open("samconfig.toml", "rb"))[sys.argv[1]]["deploy"]["parameters"]["stack_name"])' "$ENV")
url=$(infra/scripts/sam.sh list stack-outputs --stack-name "$stack" --output json |
	python3 -c 'import json, sys; print(next(o["OutputValue"] for o in json.load(sys.stdin) if o["OutputKey"] == "ApiUrl"))')
echo "api_url=$url"
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
	echo "api_url=$url" >>"$GITHUB_OUTPUT"
fi
