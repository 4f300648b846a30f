// Package connectortest holds the two-gateway test of the Adyen connector
// (connector_test.go): gateway B, a local gateway playing Adyen, and
// gateway A, whose account has an Adyen connector pointing at B.
package connectortest
