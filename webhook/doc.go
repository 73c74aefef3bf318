// Package webhook tells other services what a plan does: the events
// ([Event]), the JSON body a receiver gets ([Body]), its HMAC-SHA256
// signature ([Signature], and [VerifySignature] for receivers), and a
// [Sender] that delivers a body and classifies the answer as delivered,
// worth retrying or refused.
//
// It uses no Temporal API itself: a failed delivery is an [Error] that
// says whether a retry can help, and the Notify activity turns it into
// Temporal's error.
package webhook
