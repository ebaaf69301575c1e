// OpenSSL's libcrypto: the digests ChatTransport's SHA256Hasher and HMACSHA256 wrap. libcurl and
// libwebsockets already link it for TLS, so hashing through it adds nothing to build or ship.
#include <openssl/evp.h>
#include <openssl/hmac.h>
