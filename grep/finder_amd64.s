#include "textflag.h"

// func pairIndexSSE2(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int
TEXT ·pairIndexSSE2(SB), NOSPLIT, $0-56
	MOVQ h_base+0(FP), SI
	MOVQ h_len+8(FP), CX
	MOVQ off1+24(FP), R8
	MOVQ off2+32(FP), R9
	// X0..X3: a1, b1, a2, b2 in every byte.
	MOVBLZX a1+40(FP), AX
	MOVQ AX, X0
	PUNPCKLBW X0, X0
	PSHUFLW $0, X0, X0
	PUNPCKLQDQ X0, X0
	MOVBLZX b1+41(FP), AX
	MOVQ AX, X1
	PUNPCKLBW X1, X1
	PSHUFLW $0, X1, X1
	PUNPCKLQDQ X1, X1
	MOVBLZX a2+42(FP), AX
	MOVQ AX, X2
	PUNPCKLBW X2, X2
	PSHUFLW $0, X2, X2
	PUNPCKLQDQ X2, X2
	MOVBLZX b2+43(FP), AX
	MOVQ AX, X3
	PUNPCKLBW X3, X3
	PSHUFLW $0, X3, X3
	PUNPCKLQDQ X3, X3
	LEAQ (SI)(R8*1), R10 // where the first byte of position 0 is
	LEAQ (SI)(R9*1), R11 // where the second is
	SUBQ R9, CX          // positions whose second byte is in h
	XORQ DI, DI          // s
sseloop:
	LEAQ 16(DI), AX
	CMPQ AX, CX
	JGT  ssenone
	MOVOU (R10)(DI*1), X4
	MOVOU (R11)(DI*1), X5
	MOVO X4, X6
	PCMPEQB X0, X4
	PCMPEQB X1, X6
	POR X6, X4
	MOVO X5, X7
	PCMPEQB X2, X5
	PCMPEQB X3, X7
	POR X7, X5
	PAND X5, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ  ssefound
	ADDQ $16, DI
	JMP  sseloop
ssefound:
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+48(FP)
	RET
ssenone:
	MOVQ $-1, ret+48(FP)
	RET

// func pairIndexAVX2(h []byte, off1, off2 int, a1, b1, a2, b2 byte) int
TEXT ·pairIndexAVX2(SB), NOSPLIT, $0-56
	MOVQ h_base+0(FP), SI
	MOVQ h_len+8(FP), CX
	MOVQ off1+24(FP), R8
	MOVQ off2+32(FP), R9
	MOVBLZX a1+40(FP), AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y0
	MOVBLZX b1+41(FP), AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVBLZX a2+42(FP), AX
	MOVQ AX, X2
	VPBROADCASTB X2, Y2
	MOVBLZX b2+43(FP), AX
	MOVQ AX, X3
	VPBROADCASTB X3, Y3
	LEAQ (SI)(R8*1), R10
	LEAQ (SI)(R9*1), R11
	SUBQ R9, CX
	XORQ DI, DI
avxloop:
	LEAQ 32(DI), AX
	CMPQ AX, CX
	JGT  avxnone
	VMOVDQU (R10)(DI*1), Y4
	VMOVDQU (R11)(DI*1), Y5
	VPCMPEQB Y0, Y4, Y6
	VPCMPEQB Y1, Y4, Y7
	VPOR Y6, Y7, Y6
	VPCMPEQB Y2, Y5, Y8
	VPCMPEQB Y3, Y5, Y9
	VPOR Y8, Y9, Y8
	VPAND Y6, Y8, Y6
	VPMOVMSKB Y6, AX
	TESTL AX, AX
	JNZ  avxfound
	ADDQ $32, DI
	JMP  avxloop
avxfound:
	VZEROUPPER
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+48(FP)
	RET
avxnone:
	VZEROUPPER
	MOVQ $-1, ret+48(FP)
	RET
