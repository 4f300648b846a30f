package samtemplate

import (
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

// TestOnlyDirectPaymentsMayDecryptCards: the card key is an RSA
// ENCRYPT_DECRYPT key whose policy lets the account administer it but use
// nothing (so no IAM policy in the account can grant a use), and lets only
// the DirectPaymentsFunction's role Decrypt, with RSA-OAEP-256 alone; no
// function's own policies grant kms:Decrypt except through SSM (the
// SecureString parameters).
func TestOnlyDirectPaymentsMayDecryptCards(t *testing.T) {
	tpl := load(t)
	key, ok := tpl.Resource("DirectCardKey")
	if !ok || key.Type != "AWS::KMS::Key" {
		t.Fatalf("DirectCardKey: %+v, want an AWS::KMS::Key", key)
	}
	if Raw(key.Properties["KeySpec"]) != "RSA_2048" || Raw(key.Properties["KeyUsage"]) != "ENCRYPT_DECRYPT" {
		t.Errorf("DirectCardKey is %s %s, want RSA_2048 ENCRYPT_DECRYPT", Raw(key.Properties["KeySpec"]), Raw(key.Properties["KeyUsage"]))
	}
	decrypters := 0
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
				if !strings.Contains(principal, "DirectPaymentsFunctionRole") || use != "kms:Decrypt" {
					t.Errorf("key policy statement %s lets %s %s (via %s): only the DirectPaymentsFunction may Decrypt", Raw(s["Sid"]), principal, use, pat)
				}
			}
		}
		if strings.Contains(principal, "DirectPaymentsFunctionRole") {
			decrypters++
			if !slices.Equal(actions, []string{"kms:Decrypt"}) {
				t.Errorf("the DirectPaymentsFunction's statement grants %v, want kms:Decrypt alone", actions)
			}
			alg := Raw(mapOf(mapOf(s["Condition"])["StringEquals"])["kms:EncryptionAlgorithm"])
			if alg != "RSAES_OAEP_SHA_256" {
				t.Errorf("the decrypt statement's kms:EncryptionAlgorithm is %q, want RSAES_OAEP_SHA_256", alg)
			}
		}
	}
	if decrypters != 1 {
		t.Errorf("%d key policy statements name the DirectPaymentsFunction's role, want 1", decrypters)
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
