// The wire types carry custom fields as JSON values (`RawJSON`, `JSONObject`) and report
// decoding errors as `JSONError`: whoever imports the models gets those too.
@_exported import ChatJSON
