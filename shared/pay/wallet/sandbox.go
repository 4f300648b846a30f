package wallet

// Scenario is what the sandbox wallet's shopper does with a push.
type Scenario int

// Sandbox scenarios, chosen by the documented test phone numbers.
const (
	ScenarioWait         Scenario = iota // no answer until a test helper (confirm/decline) or the timeout
	ScenarioApprove                      // confirms at once
	ScenarioApproveLater                 // confirms after Config.ApproveDelay (a few seconds)
	ScenarioDecline                      // declines: FAILED, declined_by_shopper
	ScenarioNoAnswer                     // never answers: FAILED, confirmation_timeout after the timeout
	ScenarioInsufficient                 // the wallet cannot pay: FAILED, insufficient_funds
)

// Test phone numbers of the sandbox wallet (README "Wallet", the OpenAPI
// description). Any other number waits for the test helpers.
const (
	PhoneApprove      = "+77000000001"
	PhoneApproveLater = "+77000000002"
	PhoneDecline      = "+77000000003"
	PhoneNoAnswer     = "+77000000004"
	PhoneInsufficient = "+77000000005"
)

// SandboxScenario is the scenario of a phone number in the sandbox.
func SandboxScenario(phone string) Scenario {
	switch phone {
	case PhoneApprove:
		return ScenarioApprove
	case PhoneApproveLater:
		return ScenarioApproveLater
	case PhoneDecline:
		return ScenarioDecline
	case PhoneNoAnswer:
		return ScenarioNoAnswer
	case PhoneInsufficient:
		return ScenarioInsufficient
	}
	return ScenarioWait
}
