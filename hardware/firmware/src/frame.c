#include "frame.h"
#include <util/crc16.h>

uint16_t crc16_ccitt(const uint8_t *data, uint8_t len)
{
    uint16_t crc = 0xFFFF;
    while (len--)
        crc = _crc_xmodem_update(crc, *data++);
    return crc;
}

int16_t cobs_decode(uint8_t *buf, uint8_t len)
{
    uint8_t in = 0, out = 0;
    while (in < len) {
        uint8_t code = buf[in++];
        if (code == 0 || in + code - 1 > len)
            return -1;
        for (uint8_t i = 1; i < code; i++) {
            uint8_t b = buf[in++];
            if (b == 0)
                return -1;
            buf[out++] = b;
        }
        if (code != 0xFF && in < len)
            buf[out++] = 0;
    }
    return out;
}

uint8_t cobs_encode(const uint8_t *src, uint8_t len, uint8_t *dst)
{
    uint8_t code_pos = 0, out = 1, code = 1;
    for (uint8_t i = 0; i < len; i++) {
        if (src[i] == 0) {
            dst[code_pos] = code;
            code_pos = out++;
            code = 1;
        } else {
            dst[out++] = src[i];
            if (++code == 0xFF) {
                dst[code_pos] = code;
                code_pos = out++;
                code = 1;
            }
        }
    }
    dst[code_pos] = code;
    return out;
}
