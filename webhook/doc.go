// Package webhook tells other services what a plan does: the events
// ([Event]), the JSON body a receiver gets ([Body]), its HMAC-SHA256
// signature ([Signature], and [VerifySignature] for receivers), and a
// [Sender] that delivers a body and classifies the answer as delivered,
// worth retrying or refused.
//
// Receivers import only this package; it does not depend on Temporal.
package webhook
