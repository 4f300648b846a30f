package samtemplate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// useActions are KMS actions that use a key's cryptography; an
// administrator's grant must hold none of them (nor a wildcard covering one).
var useActions = []string{"kms:Decrypt", "kms:Encrypt", "kms:ReEncryptFrom", "kms:ReEncryptTo", "kms:GenerateDataKey",
	"kms:GenerateDataKeyPair", "kms:GenerateDataKeyWithoutPlaintext", "kms:GenerateDataKeyPairWithoutPlaintext", "kms:Sign",
	"kms:CreateGrant"} // a grant hands a use on

// covers reports whether an action pattern (kms:*, kms:Re*, ...) matches a.
func covers(pattern, a string) bool {
	if pattern == "*" || pattern == a {
		return true
	}
	p, ok := strings.CutSuffix(pattern, "*")
	return ok && strings.HasPrefix(a, p)
}

// cardDecrypters are the functions that take cards and so decrypt them: the
// direct payments, and checkout's advanced flow, Drop-in routes and hosted
// page, which open the card fields the Drop-in encrypts in the browser
// (their mains pass app.WithCardKeys(kmsapp.Open)).
var cardDecrypters = []string{"DirectPaymentsFunction", "CheckoutPaymentsFunction", "CheckoutClientFunction", "HostedPageFunction"}

// decrypter is the card-taking function whose role principal names, or "".
func decrypter(principal string) string {
	for _, f := range cardDecrypters {
		if principal == "!GetAtt "+f+"Role.Arn" {
			return f
		}
	}
	return ""
}

// TestOnlyCardFunctionsMayDecryptCards: the card key is an RSA
// ENCRYPT_DECRYPT key whose policy lets the account administer it but use
// nothing (so no IAM policy in the account can grant a use), and lets only
// the card-taking functions' roles Decrypt (one statement each), with
// RSA-OAEP-256 alone; no function's own policies grant kms:Decrypt except
// through SSM (the SecureString parameters).
func TestOnlyCardFunctionsMayDecryptCards(t *testing.T) {
	tpl := load(t)
	key, ok := tpl.Resource("DirectCardKey")
	if !ok || key.Type != "AWS::KMS::Key" {
		t.Fatalf("DirectCardKey: %+v, want an AWS::KMS::Key", key)
	}
	if Raw(key.Properties["KeySpec"]) != "RSA_2048" || Raw(key.Properties["KeyUsage"]) != "ENCRYPT_DECRYPT" {
		t.Errorf("DirectCardKey is %s %s, want RSA_2048 ENCRYPT_DECRYPT", Raw(key.Properties["KeySpec"]), Raw(key.Properties["KeyUsage"]))
	}
	decrypters := map[string]int{}
	for _, st := range asList(mapOf(key.Properties["KeyPolicy"])["Statement"]) {
		s := mapOf(st)
		if Raw(s["Effect"]) != "Allow" {
			continue
		}
		principal := Raw(mapOf(s["Principal"])["AWS"])
		actions := strs(s["Action"])
		for _, pat := range actions {
			for _, use := range useActions {
				if !covers(pat, use) {
					continue
				}
				if decrypter(principal) == "" || use != "kms:Decrypt" {
					t.Errorf("key policy statement %s lets %s %s (via %s): only %v may Decrypt", Raw(s["Sid"]), principal, use, pat, cardDecrypters)
				}
			}
		}
		if f := decrypter(principal); f != "" {
			decrypters[f]++
			if !slices.Equal(actions, []string{"kms:Decrypt"}) {
				t.Errorf("the %s's statement grants %v, want kms:Decrypt alone", f, actions)
			}
			alg := Raw(mapOf(mapOf(s["Condition"])["StringEquals"])["kms:EncryptionAlgorithm"])
			if alg != "RSAES_OAEP_SHA_256" {
				t.Errorf("the decrypt statement's kms:EncryptionAlgorithm is %q, want RSAES_OAEP_SHA_256", alg)
			}
		}
	}
	for _, f := range cardDecrypters {
		if decrypters[f] != 1 {
			t.Errorf("%d key policy statements name the %s's role, want 1", decrypters[f], f)
		}
	}
	if _, ok := tpl.Outputs["DirectCardKeyArn"]; !ok {
		t.Error("no DirectCardKeyArn output: the operator adopts the key with its ARN")
	}

	// No function's own policies (inline or managed) decrypt with KMS but
	// through SSM.
	for _, r := range append(tpl.ResourcesOfType("AWS::IAM::ManagedPolicy"), tpl.ResourcesOfType(TypeFunction)...) {
		id := r.LogicalID
		var docs []any
		switch r.Type {
		case "AWS::IAM::ManagedPolicy":
			docs = append(docs, r.Properties["PolicyDocument"])
		case TypeFunction:
			for _, p := range asList(r.Properties["Policies"]) {
				if m := mapOf(p); m["Statement"] != nil {
					docs = append(docs, m)
				}
			}
		default:
			continue
		}
		for _, doc := range docs {
			for _, st := range asList(mapOf(doc)["Statement"]) {
				s := mapOf(st)
				for _, pat := range strs(s["Action"]) {
					if covers(pat, "kms:Decrypt") && Raw(mapOf(mapOf(s["Condition"])["StringEquals"])["kms:ViaService"]) == "" {
						t.Errorf("%s grants kms:Decrypt (%s) not limited to a service: only the card key's policy may grant it", id, pat)
					}
				}
			}
		}
	}
}

// secretHolders are the functions that seal or open the stored secrets
// (webhook signing secrets, TOTP secrets): their mains pass
// app.WithSecretBox(kmsapp.OpenSecretBox).
var secretHolders = []string{"WebhookEndpointsFunction", "WebhookSenderFunction", "DashboardFunction"}

// secretReaders are the functions that only open stored secrets: the card
// functions that reach a card connector (its API key, sealed by the admin
// CLI's connectors set: shared/domain/connectors); their mains pass
// app.WithSecretBox(kmsapp.OpenSecretBox) too, and they may Decrypt alone.
var secretReaders = []string{"CheckoutPaymentsFunction", "CheckoutClientFunction", "HostedPageFunction", "DirectPaymentsFunction",
	"CustomersFunction", "TransactionsFunction", "CheckoutModificationsFunction", "AuthorizationExpirerFunction",
	"ProcessorNoticesFunction"}

// TestOnlySecretHoldersUseTheSecretBoxKey: the secret box's key is a
// symmetric key, rotated, that the account may administer but not use;
// each secret holder's role may make and open data keys with it (one
// statement each, GenerateDataKey and Decrypt alone), each secret reader's
// may open them (one statement each, Decrypt alone), only under the
// encryption context paygate:purpose=secretbox; each of them names it by
// its alias in SECRETBOX_KMS_KEY, and no other function does. Every function gets the idempotency
// fingerprint key from Secrets Manager, never a literal.
func TestOnlySecretHoldersUseTheSecretBoxKey(t *testing.T) {
	tpl := load(t)
	key, ok := tpl.Resource("SecretBoxKey")
	if !ok || key.Type != "AWS::KMS::Key" {
		t.Fatalf("SecretBoxKey: %+v, want an AWS::KMS::Key", key)
	}
	if Raw(key.Properties["KeySpec"]) != "SYMMETRIC_DEFAULT" || Raw(key.Properties["EnableKeyRotation"]) != "true" {
		t.Errorf("SecretBoxKey is %s, rotation %s; want SYMMETRIC_DEFAULT, rotated", Raw(key.Properties["KeySpec"]), Raw(key.Properties["EnableKeyRotation"]))
	}
	holders := map[string]int{}
	for _, st := range asList(mapOf(key.Properties["KeyPolicy"])["Statement"]) {
		s := mapOf(st)
		principal := Raw(mapOf(s["Principal"])["AWS"])
		holder, want := "", []string{"kms:GenerateDataKey", "kms:Decrypt"}
		for _, f := range secretHolders {
			if principal == "!GetAtt "+f+"Role.Arn" {
				holder = f
			}
		}
		for _, f := range secretReaders {
			if principal == "!GetAtt "+f+"Role.Arn" {
				holder, want = f, []string{"kms:Decrypt"}
			}
		}
		actions := strs(s["Action"])
		if holder == "" {
			for _, pat := range actions {
				for _, use := range useActions {
					if covers(pat, use) {
						t.Errorf("key policy statement %s lets %s %s (via %s): only %v and %v may use the key", Raw(s["Sid"]), principal, use, pat, secretHolders, secretReaders)
					}
				}
			}
			continue
		}
		holders[holder]++
		if !slices.Equal(actions, want) {
			t.Errorf("the %s's statement grants %v, want %v alone", holder, actions, want)
		}
		if ctx := Raw(mapOf(mapOf(s["Condition"])["StringEquals"])["kms:EncryptionContext:paygate:purpose"]); ctx != "secretbox" {
			t.Errorf("the %s's statement's encryption context is %q, want secretbox", holder, ctx)
		}
	}
	users := append(slices.Clone(secretHolders), secretReaders...)
	for _, fn := range tpl.Functions() {
		if _, ok := fn.Env["SECRETBOX_KMS_KEY"]; ok && !slices.Contains(users, fn.LogicalID) {
			t.Errorf("%s names the secret box's key, but its role may not use it", fn.LogicalID)
		}
	}
	for _, f := range users {
		if holders[f] != 1 {
			t.Errorf("%d key policy statements name the %s's role, want 1", holders[f], f)
		}
		fn, ok := tpl.Function(f)
		if !ok {
			t.Errorf("no %s", f)
			continue
		}
		if got := fn.Env["SECRETBOX_KMS_KEY"]; got != "!Sub alias/paygate-${Environment}-secretbox" {
			t.Errorf("%s's SECRETBOX_KMS_KEY is %q, want the key's alias", f, got)
		}
	}
	alias, ok := tpl.Resource("SecretBoxKeyAlias")
	if !ok || Raw(alias.Properties["AliasName"]) != "!Sub alias/paygate-${Environment}-secretbox" {
		t.Errorf("SecretBoxKeyAlias: %+v", alias)
	}
	for _, fn := range tpl.Functions() {
		if got := fn.Env["IDEMPOTENCY_FINGERPRINT_KEY"]; !strings.Contains(got, "{{resolve:secretsmanager:") {
			t.Errorf("%s's IDEMPOTENCY_FINGERPRINT_KEY is %q, want a Secrets Manager reference", fn.LogicalID, got)
		}
	}
}

// TestSecretBoxUsersOpenTheBox: a function whose role may use the secret
// box's key is one whose main opens the box (app.WithSecretBox), and the
// other way round: a main that opens it without the key would not start,
// and a key no main opens is a grant nobody needs.
func TestSecretBoxUsersOpenTheBox(t *testing.T) {
	users := append(slices.Clone(secretHolders), secretReaders...)
	for _, fn := range load(t).Functions() {
		main, err := os.ReadFile(filepath.Join("../..", fn.CodeURI, "main.go"))
		if err != nil {
			t.Errorf("%s: %v", fn.LogicalID, err)
			continue
		}
		opens := strings.Contains(string(main), "app.WithSecretBox(kmsapp.OpenSecretBox)")
		if uses := slices.Contains(users, fn.LogicalID); opens != uses {
			t.Errorf("%s: its main opens the secret box: %t; its role may use the key: %t", fn.LogicalID, opens, uses)
		}
	}
}
