// Package reply holds the JSON documents the model answers with, one per
// structured phase: [Clarify], [Options] (of [Option]s made of [Step]s)
// and [Reflect]. They are the contract between the prompts, the parser and
// any model that plays the LLM, the offline one included.
//
// Each type has a Check method that normalizes what the model may leave
// out and refuses what planmode cannot use, with a message fit for the one
// repair request, and a conversion to the plan types. The JSON schemas
// sent to providers that accept response_format json_schema
// ([ClarifySchema], [OptionsSchema], [ReflectSchema]) are derived from the
// types themselves, so that they cannot drift from what is decoded.
package reply
