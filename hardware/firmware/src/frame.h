/* COBS framing and CRC-16/CCITT-FALSE: the two pieces that let the receiver resynchronise on any
 * garbage (every 0x00 ends a frame) and reject damaged frames. */
#ifndef LEDBOARD_FRAME_H
#define LEDBOARD_FRAME_H
#include <stdint.h>

uint16_t crc16_ccitt(const uint8_t *data, uint8_t len);
/* Decode in place; returns decoded length, or -1 when the COBS structure is invalid. */
int16_t cobs_decode(uint8_t *buf, uint8_t len);
/* Encode src into dst (dst must hold len + 1 bytes); returns encoded length. */
uint8_t cobs_encode(const uint8_t *src, uint8_t len, uint8_t *dst);
#endif
