#ifndef CHATBOTKIT_CMAGIC_SHIM_H
#define CHATBOTKIT_CMAGIC_SHIM_H

#include <magic.h>

#endif
