package io.ringwire.rdma.roce;

/**
 * RoCEv2 reliable-connected wire format (InfiniBand Architecture spec vol. 1, ch. 9; the Linux
 * kernel's rxe speaks the same). A packet is the UDP payload to port 4791:
 *
 * <pre>
 *  BTH (12 bytes), all fields big-endian:
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    opcode     |S|M|Pad| TVer  |             P_Key             |  0
 *  +-+-+-----------+---------------+-------------------------------+
 *  |F|B|  resv 6   |            destination QP (24)                |  4
 *  +-+-------------+-----------------------------------------------+
 *  |A|  resv 7     |                  PSN (24)                     |  8
 *  +-+-------------+-----------------------------------------------+
 *  then by opcode: RETH (16: VA 64, R_Key 32, DMA length 32), ImmDt (4), AETH (4: syndrome 8 | MSN 24)
 *  then payload, pad to 4 bytes (PadCnt in the BTH), ICRC (4, little-endian).
 * </pre>
 */
final class RoceWire
{
    static final int DEFAULT_UDP_PORT = 4791;

    static final int BTH_LENGTH = 12;
    static final int RETH_LENGTH = 16;
    static final int IMMDT_LENGTH = 4;
    static final int AETH_LENGTH = 4;

    static final int BTH_OPCODE_OFFSET = 0;
    static final int BTH_FLAGS_OFFSET = 1;
    static final int BTH_PKEY_OFFSET = 2;
    static final int BTH_FECN_BECN_OFFSET = 4;
    static final int BTH_DEST_QP_OFFSET = 4;
    static final int BTH_ACK_REQ_OFFSET = 8;
    static final int BTH_PSN_OFFSET = 8;

    static final int BTH_SOLICITED = 0x80;
    static final int BTH_MIGRATION = 0x40;
    static final int BTH_PAD_SHIFT = 4;
    static final int BTH_PAD_MASK = 0x30;
    static final int BTH_TVER_MASK = 0x0F;
    static final int BTH_ACK_REQUEST = 0x80;

    static final int RETH_VA_OFFSET = 0;
    static final int RETH_RKEY_OFFSET = 8;
    static final int RETH_DMA_LENGTH_OFFSET = 12;

    // RC opcodes.
    static final int SEND_FIRST = 0x00;
    static final int SEND_MIDDLE = 0x01;
    static final int SEND_LAST = 0x02;
    static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    static final int SEND_ONLY = 0x04;
    static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    static final int WRITE_FIRST = 0x06;
    static final int WRITE_MIDDLE = 0x07;
    static final int WRITE_LAST = 0x08;
    static final int WRITE_LAST_WITH_IMMEDIATE = 0x09;
    static final int WRITE_ONLY = 0x0A;
    static final int WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
    static final int ACKNOWLEDGE = 0x11;
    /** RC RDMA READ Request: BTH + RETH, no payload. Parsed so it can be refused, never executed. */
    static final int READ_REQUEST = 0x0C;
    /** RC CmpSwap: BTH + AtomicETH. Parsed so it can be refused, never executed. */
    static final int COMPARE_SWAP = 0x13;
    /** RC FetchAdd: BTH + AtomicETH. Parsed so it can be refused, never executed. */
    static final int FETCH_ADD = 0x14;
    /** AtomicETH: VA (8), R_Key (4), swap or add data (8), compare data (8). */
    static final int ATOMIC_ETH_LENGTH = 28;

    // AETH syndromes.
    static final int AETH_ACK = 0x00;
    static final int AETH_CREDITS_UNLIMITED = 0x1F;
    static final int AETH_RNR_NAK = 0x20;
    static final int AETH_NAK_PSN_SEQUENCE_ERROR = 0x60;
    static final int AETH_NAK_INVALID_REQUEST = 0x61;
    static final int AETH_NAK_REMOTE_ACCESS_ERROR = 0x62;
    static final int AETH_NAK_REMOTE_OPERATIONAL_ERROR = 0x63;
    static final int AETH_KIND_MASK = 0xE0;
    static final int AETH_KIND_ACK = 0x00;
    static final int AETH_KIND_RNR_NAK = 0x20;
    static final int AETH_KIND_NAK = 0x60;

    static final int PSN_MASK = 0xFF_FFFF;
    static final int MSN_MASK = 0xFF_FFFF;
    /** Most PSNs a requester has sent and unacknowledged: its window of packets in flight. */
    static final int MAX_UNACKNOWLEDGED_PSNS = 128;
    /**
     * Most PSNs a requester has assigned and unacknowledged when it takes another request. Requests
     * wait past the window, as on a NIC, whose send queue holds what the window does not yet let
     * go; the bound, with a message of at most {@link #MAX_MESSAGE_PACKETS}, keeps every distance
     * between live PSNs within half the 24-bit space, where {@link #psnDistance} reads it.
     */
    static final int MAX_QUEUED_PSNS = 1 << 22;
    /** Packets of the longest message at the smallest path MTU (256 bytes): {@link #MAX_MESSAGE_SIZE} / 256. */
    static final int MAX_MESSAGE_PACKETS = 1 << 22;
    /** The longest message: {@link #MAX_MESSAGE_PACKETS} packets of the smallest path MTU. */
    static final int MAX_MESSAGE_SIZE = 1 << 30;
    /** A requester asks for an ACK at least this often. */
    static final int ACK_REQUEST_INTERVAL = 64;

    private RoceWire()
    {
    }

    /** @return true for opcodes of the RC transport this stack executes. */
    static boolean isSupportedRequest(final int opcode)
    {
        return opcode >= SEND_FIRST && opcode <= WRITE_ONLY_WITH_IMMEDIATE;
    }

    /**
     * @return true for the RC requests a peer may send but this stack does not execute (RDMA READ
     *         and the atomics): the responder refuses them with an invalid-request NAK, as a
     *         responder does for an operation its queue pair does not enable.
     */
    static boolean isRefusedOperation(final int opcode)
    {
        return opcode == READ_REQUEST || opcode == COMPARE_SWAP || opcode == FETCH_ADD;
    }

    static boolean isWrite(final int opcode)
    {
        return opcode >= WRITE_FIRST && opcode <= WRITE_ONLY_WITH_IMMEDIATE;
    }

    static boolean hasReth(final int opcode)
    {
        return opcode == WRITE_FIRST || opcode == WRITE_ONLY || opcode == WRITE_ONLY_WITH_IMMEDIATE;
    }

    static boolean hasImmediate(final int opcode)
    {
        return opcode == SEND_LAST_WITH_IMMEDIATE || opcode == SEND_ONLY_WITH_IMMEDIATE ||
            opcode == WRITE_LAST_WITH_IMMEDIATE || opcode == WRITE_ONLY_WITH_IMMEDIATE;
    }

    /** @return true when the packet starts a message (FIRST or ONLY). */
    static boolean startsMessage(final int opcode)
    {
        return opcode == SEND_FIRST || opcode == SEND_ONLY || opcode == SEND_ONLY_WITH_IMMEDIATE ||
            opcode == WRITE_FIRST || opcode == WRITE_ONLY || opcode == WRITE_ONLY_WITH_IMMEDIATE;
    }

    /** @return true when the packet ends a message (LAST or ONLY). */
    static boolean endsMessage(final int opcode)
    {
        return opcode == SEND_LAST || opcode == SEND_LAST_WITH_IMMEDIATE || opcode == SEND_ONLY ||
            opcode == SEND_ONLY_WITH_IMMEDIATE || opcode == WRITE_LAST || opcode == WRITE_LAST_WITH_IMMEDIATE ||
            opcode == WRITE_ONLY || opcode == WRITE_ONLY_WITH_IMMEDIATE;
    }

    /** @return bytes of headers after the BTH for a request or ACK opcode, or -1 if unsupported. */
    static int extensionHeaderLength(final int opcode)
    {
        if (opcode == ACKNOWLEDGE)
        {
            return AETH_LENGTH;
        }
        if (opcode == READ_REQUEST)
        {
            return RETH_LENGTH;
        }
        if (opcode == COMPARE_SWAP || opcode == FETCH_ADD)
        {
            return ATOMIC_ETH_LENGTH;
        }
        if (!isSupportedRequest(opcode))
        {
            return -1;
        }
        return (hasReth(opcode) ? RETH_LENGTH : 0) + (hasImmediate(opcode) ? IMMDT_LENGTH : 0);
    }

    /** @return (a - b) as a signed distance in 24-bit PSN space. */
    static int psnDistance(final int a, final int b)
    {
        return ((a - b) << 8) >> 8;
    }

    static int nextPsn(final int psn)
    {
        return (psn + 1) & PSN_MASK;
    }

    static int addPsn(final int psn, final int delta)
    {
        return (psn + delta) & PSN_MASK;
    }

    /**
     * The UDP source port carrying flow entropy, as Linux derives it from a flow label computed
     * from both queue pair numbers: {@code 0xC000 | ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14))}.
     */
    static int sourcePort(final int localQpn, final int remoteQpn)
    {
        long v = (long)localQpn * remoteQpn;
        v ^= v >>> 20;
        v ^= v >>> 40;
        final int flowLabel = (int)(v & 0xFFFFF);
        return 0xC000 | ((flowLabel & 0x3FFF) ^ ((flowLabel & 0xFC000) >>> 14));
    }

    static String opcodeName(final int opcode)
    {
        return switch (opcode)
        {
            case SEND_FIRST -> "SEND_FIRST";
            case SEND_MIDDLE -> "SEND_MIDDLE";
            case SEND_LAST -> "SEND_LAST";
            case SEND_LAST_WITH_IMMEDIATE -> "SEND_LAST_WITH_IMMEDIATE";
            case SEND_ONLY -> "SEND_ONLY";
            case SEND_ONLY_WITH_IMMEDIATE -> "SEND_ONLY_WITH_IMMEDIATE";
            case WRITE_FIRST -> "RDMA_WRITE_FIRST";
            case WRITE_MIDDLE -> "RDMA_WRITE_MIDDLE";
            case WRITE_LAST -> "RDMA_WRITE_LAST";
            case WRITE_LAST_WITH_IMMEDIATE -> "RDMA_WRITE_LAST_WITH_IMMEDIATE";
            case WRITE_ONLY -> "RDMA_WRITE_ONLY";
            case WRITE_ONLY_WITH_IMMEDIATE -> "RDMA_WRITE_ONLY_WITH_IMMEDIATE";
            case ACKNOWLEDGE -> "ACKNOWLEDGE";
            case READ_REQUEST -> "RDMA_READ_REQUEST";
            case COMPARE_SWAP -> "COMPARE_SWAP";
            case FETCH_ADD -> "FETCH_ADD";
            default -> "UNSUPPORTED(0x" + Integer.toHexString(opcode) + ")";
        };
    }
}
