#ifndef CHATBOTKIT_CLWS_SHIM_H
#define CHATBOTKIT_CLWS_SHIM_H

#include <libwebsockets.h>

/* LWS_PRE is a macro Swift cannot import; every buffer handed to lws_write needs that much headroom. */
static inline size_t cbk_lws_pre(void) {
    return LWS_PRE;
}

#endif
