// ns-3 baseline for sdmac: the classic DCF saturation scenario (Bianchi, JSAC 2000).
//
// 802.11a, 5 GHz (channel 36, 20 MHz), ConstantRateWifiManager with DATA at
// OfdmRate54Mbps and control frames at OfdmRate24Mbps (the ACK for a 54 Mb/s frame goes
// at 24 Mb/s, the highest basic rate <= 54), non-QoS ad hoc MAC (DCF: CWmin 15,
// CWmax 1023, AIFSN 2, retry limit 7), RTS/CTS and fragmentation off, YANS channel,
// every node within 2 m of every other (no channel errors, propagation delay < 7 ns).
//
// n stations send to one sink. Each station has a closed-loop saturating source: it keeps
// `--backlog` packets (default 4) in its MAC queue at all times, handing a new one to its
// socket whenever one of its MPDUs leaves the MAC (acked, or dropped after the retry
// limit). So the queue never empties, and the source costs one simulator event per frame
// (no packets generated only to be dropped at a full queue).
//
// Frame sizes (checked at run time, see "mpdu_bytes" in the output):
//   udp (default):  app payload 1472 + UDP 8 + IPv4 20 = 1500 B IP datagram
//   packet-socket:  app payload 1500 (no IP/UDP)
//   MSDU = LLC/SNAP 8 + 1500 = 1508 B; MPDU = MAC header 24 + 1508 + FCS 4 = 1536 B.
//
// Throughput = (1500 B payloads received at the sink during the measurement window) * 8 /
// duration. The window starts after --warmup seconds. ARP caches are filled statically,
// so no ARP traffic is on the air.
//
// Output: one JSON line on stdout. "events" is Simulator::GetEventCount() after
// Simulator::Run, "wall_seconds" the wall-clock time of Simulator::Run alone, and
// "simulated_seconds" the simulated time Run covered (warmup + duration); the *_window
// fields cover only the measurement window.

#include "ns3/core-module.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/mobility-helper.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/network-module.h"
#include "ns3/packet-socket-address.h"
#include "ns3/packet-socket-helper.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mpdu.h"
#include "ns3/wifi-net-device.h"
#include "ns3/yans-wifi-helper.h"

#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kPayloadBytes = 1500; // Bianchi's payload: the MSDU body after LLC/SNAP
constexpr uint32_t kLlcSnapBytes = 8;
constexpr uint32_t kMsduBytes = kPayloadBytes + kLlcSnapBytes; // 1508
constexpr uint32_t kUdpIpBytes = 8 + 20;

using Clock = std::chrono::steady_clock;

struct Sink
{
    Time windowStart;
    Time windowEnd;
    uint64_t rxWindow = 0;     // 1500 B payloads received inside the window
    uint64_t rxTotal = 0;      // all received
    uint64_t rxWrongSize = 0;  // received packets of an unexpected size (should stay 0)
    uint32_t expectedSize = 0; // application-level size of one packet

    void OnRecv(Ptr<Socket> socket)
    {
        Ptr<Packet> p;
        while ((p = socket->Recv()))
        {
            if (p->GetSize() != expectedSize)
            {
                ++rxWrongSize;
                continue;
            }
            ++rxTotal;
            Time now = Simulator::Now();
            if (now >= windowStart && now < windowEnd)
            {
                ++rxWindow;
            }
        }
    }
};

// Keeps `backlog` packets queued at one station's MAC.
struct SaturatingSource
{
    Ptr<Socket> socket;
    Mac48Address sinkMac;
    uint32_t appBytes = 0;
    uint32_t backlog = 4;
    uint64_t outstanding = 0; // handed to the socket, not yet acked or dropped by the MAC
    uint64_t sent = 0;
    uint64_t acked = 0;
    uint64_t dropped = 0;
    uint32_t* mpduBytesSeen = nullptr; // shared: size of the first acked data MPDU

    bool IsOurs(const Ptr<const WifiMpdu>& mpdu) const
    {
        const WifiMacHeader& hdr = mpdu->GetHeader();
        return hdr.IsData() && hdr.GetAddr1() == sinkMac && mpdu->GetPacketSize() == kMsduBytes;
    }

    void Refill()
    {
        while (outstanding < backlog)
        {
            int r = socket->Send(Create<Packet>(appBytes));
            if (r < 0)
            {
                std::fprintf(stderr, "socket Send failed (errno %d)\n", socket->GetErrno());
                std::exit(3);
            }
            ++outstanding;
            ++sent;
        }
    }

    void Done()
    {
        if (outstanding > 0)
        {
            --outstanding;
        }
        // Hand the next packet over in its own event (as an application would), never from
        // inside the MAC's ACK handling.
        Simulator::ScheduleNow(&SaturatingSource::Refill, this);
    }

    void OnAcked(Ptr<const WifiMpdu> mpdu)
    {
        if (!IsOurs(mpdu))
        {
            return;
        }
        ++acked;
        if (mpduBytesSeen && *mpduBytesSeen == 0)
        {
            *mpduBytesSeen = mpdu->GetSize(); // header + MSDU + FCS
        }
        Done();
    }

    void OnDropped(WifiMacDropReason /*reason*/, Ptr<const WifiMpdu> mpdu)
    {
        if (!IsOurs(mpdu))
        {
            return;
        }
        ++dropped;
        Done();
    }
};

struct Mark
{
    uint64_t events = 0;
    Clock::time_point wall;
};

void
TakeMark(Mark* mark)
{
    mark->events = Simulator::GetEventCount();
    mark->wall = Clock::now();
}

// ns-3's CommandLine wants --name=value; also accept "--name value" for our options.
std::vector<std::string>
JoinOptionValues(int argc, char* argv[], const std::vector<std::string>& names)
{
    std::vector<std::string> out;
    for (int i = 0; i < argc; ++i)
    {
        std::string a = argv[i];
        bool joined = false;
        if (i > 0 && i + 1 < argc && a.rfind("--", 0) == 0 && a.find('=') == std::string::npos)
        {
            for (const auto& n : names)
            {
                if (a == "--" + n)
                {
                    out.push_back(a + "=" + argv[++i]);
                    joined = true;
                    break;
                }
            }
        }
        if (!joined)
        {
            out.push_back(a);
        }
    }
    return out;
}

[[noreturn]] void
Fail(const std::string& msg)
{
    std::fprintf(stderr, "saturation: %s\n", msg.c_str());
    std::exit(2);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t stations = 10;
    double duration = 10.0;
    double warmup = 0.5;
    uint32_t seed = 1;
    uint32_t run = 1;
    uint32_t backlog = 4;
    std::string transport = "udp";
    double radius = 1.0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("stations", "number of saturated stations (n >= 1)", stations);
    cmd.AddValue("duration", "measurement window D in seconds (throughput = bits / D)", duration);
    cmd.AddValue("warmup", "seconds simulated before the measurement window", warmup);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("backlog", "packets each station keeps in its MAC queue", backlog);
    cmd.AddValue("transport", "udp (UDP/IPv4 sockets) or packet-socket (no IP)", transport);
    cmd.AddValue("radius", "stations sit on a circle of this radius (m) around the sink",
                 radius);
    std::vector<std::string> args = JoinOptionValues(
        argc,
        argv,
        {"stations", "duration", "warmup", "seed", "run", "backlog", "transport", "radius"});
    cmd.Parse(args);

    if (stations < 1)
    {
        Fail("--stations must be >= 1");
    }
    if (!(duration > 0) || !(warmup >= 0))
    {
        Fail("--duration must be > 0 and --warmup >= 0");
    }
    if (seed < 1)
    {
        Fail("--seed must be >= 1 (ns-3 rejects seed 0)");
    }
    if (backlog < 1)
    {
        Fail("--backlog must be >= 1");
    }
    const bool useUdp = transport == "udp";
    if (!useUdp && transport != "packet-socket")
    {
        Fail("--transport must be udp or packet-socket, not '" + transport + "'");
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    // Packets stay in the MAC queue until sent; no lifetime-based drops.
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1000)));

    NodeContainer sinkNode;
    sinkNode.Create(1);
    NodeContainer staNodes;
    staNodes.Create(stations);
    NodeContainer all(sinkNode, staNodes);

    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("ChannelSettings", StringValue("{36, 20, BAND_5GHZ, 0}"));

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("OfdmRate54Mbps"),
                                 "ControlMode",
                                 StringValue("OfdmRate24Mbps"),
                                 "RtsCtsThreshold",
                                 UintegerValue(4692),
                                 "FragmentationThreshold",
                                 UintegerValue(65535));

    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false));

    NetDeviceContainer devices = wifi.Install(phy, mac, all);
    WifiHelper::AssignStreams(devices, 100);

    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    for (uint32_t i = 0; i < stations; ++i)
    {
        double a = 2 * M_PI * i / stations;
        pos->Add(Vector(radius * std::cos(a), radius * std::sin(a), 0));
    }
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(all);

    Ptr<WifiNetDevice> sinkDev = DynamicCast<WifiNetDevice>(devices.Get(0));
    Mac48Address sinkMac = Mac48Address::ConvertFrom(sinkDev->GetAddress());

    Sink sink;
    sink.windowStart = Seconds(warmup);
    sink.windowEnd = Seconds(warmup + duration);
    uint32_t appBytes;
    Ptr<Socket> sinkSocket;

    std::vector<Ptr<Socket>> staSockets(stations);
    if (useUdp)
    {
        appBytes = kPayloadBytes - kUdpIpBytes; // 1472
        InternetStackHelper internet;
        internet.SetIpv6StackInstall(false);
        internet.Install(all);
        Ipv4AddressHelper ipv4;
        ipv4.SetBase("10.0.0.0", "255.255.0.0");
        Ipv4InterfaceContainer ifaces = ipv4.Assign(devices);
        NeighborCacheHelper neighbors;
        neighbors.PopulateNeighborCache(); // static ARP: no ARP frames on the air

        const uint16_t port = 9;
        sinkSocket = Socket::CreateSocket(sinkNode.Get(0), UdpSocketFactory::GetTypeId());
        if (sinkSocket->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0)
        {
            Fail("cannot bind the sink's UDP socket");
        }
        InetSocketAddress dst(ifaces.GetAddress(0), port);
        for (uint32_t i = 0; i < stations; ++i)
        {
            Ptr<Socket> s = Socket::CreateSocket(staNodes.Get(i), UdpSocketFactory::GetTypeId());
            if (s->Bind() != 0 || s->Connect(dst) != 0)
            {
                Fail("cannot set up a station's UDP socket");
            }
            staSockets[i] = s;
        }
    }
    else
    {
        appBytes = kPayloadBytes; // 1500
        PacketSocketHelper packetSocket;
        packetSocket.Install(all);
        const uint16_t protocol = 0x88B5; // IEEE "local experimental" EtherType
        TypeId tid = TypeId::LookupByName("ns3::PacketSocketFactory");
        sinkSocket = Socket::CreateSocket(sinkNode.Get(0), tid);
        PacketSocketAddress local;
        local.SetSingleDevice(sinkDev->GetIfIndex());
        local.SetProtocol(protocol);
        if (sinkSocket->Bind(local) != 0)
        {
            Fail("cannot bind the sink's packet socket");
        }
        for (uint32_t i = 0; i < stations; ++i)
        {
            Ptr<NetDevice> dev = devices.Get(i + 1);
            PacketSocketAddress remote;
            remote.SetSingleDevice(dev->GetIfIndex());
            remote.SetPhysicalAddress(sinkMac);
            remote.SetProtocol(protocol);
            Ptr<Socket> s = Socket::CreateSocket(staNodes.Get(i), tid);
            if (s->Bind(remote) != 0 || s->Connect(remote) != 0)
            {
                Fail("cannot set up a station's packet socket");
            }
            staSockets[i] = s;
        }
    }
    sink.expectedSize = appBytes;
    sinkSocket->SetRecvCallback(MakeCallback(&Sink::OnRecv, &sink));

    uint32_t mpduBytesSeen = 0;
    std::vector<std::unique_ptr<SaturatingSource>> sources;
    for (uint32_t i = 0; i < stations; ++i)
    {
        auto src = std::make_unique<SaturatingSource>();
        src->socket = staSockets[i];
        src->sinkMac = sinkMac;
        src->appBytes = appBytes;
        src->backlog = backlog;
        src->mpduBytesSeen = &mpduBytesSeen;
        Ptr<WifiMac> wmac = DynamicCast<WifiNetDevice>(devices.Get(i + 1))->GetMac();
        if (wmac->GetQosSupported())
        {
            Fail("the MAC unexpectedly has QoS enabled");
        }
        if (!wmac->TraceConnectWithoutContext(
                "AckedMpdu",
                MakeCallback(&SaturatingSource::OnAcked, src.get())) ||
            !wmac->TraceConnectWithoutContext(
                "DroppedMpdu",
                MakeCallback(&SaturatingSource::OnDropped, src.get())))
        {
            Fail("cannot connect to the WifiMac AckedMpdu/DroppedMpdu trace sources");
        }
        // Stagger the start by a few ns so that the first packets are not queued in
        // exactly the same instant (they still contend through backoff as usual).
        Simulator::Schedule(NanoSeconds(i), &SaturatingSource::Refill, src.get());
        sources.push_back(std::move(src));
    }

    Mark atWindowStart;
    Simulator::Schedule(Seconds(warmup), &TakeMark, &atWindowStart);
    Mark atWindowEnd;
    Simulator::Schedule(Seconds(warmup + duration), &TakeMark, &atWindowEnd);
    Simulator::Stop(Seconds(warmup + duration));

    const auto t0 = Clock::now();
    Simulator::Run();
    const auto t1 = Clock::now();
    const uint64_t events = Simulator::GetEventCount();
    const double simulated = Simulator::Now().GetSeconds();
    const double wall = std::chrono::duration<double>(t1 - t0).count();
    // The window-end probe is scheduled at the same time as Stop; if it did not run,
    // the window ends with Run.
    if (atWindowEnd.events == 0)
    {
        atWindowEnd.events = events;
        atWindowEnd.wall = t1;
    }
    if (warmup == 0)
    {
        atWindowStart.events = 0;
        atWindowStart.wall = t0;
    }

    uint64_t sent = 0;
    uint64_t acked = 0;
    uint64_t dropped = 0;
    for (const auto& s : sources)
    {
        sent += s->sent;
        acked += s->acked;
        dropped += s->dropped;
    }

    struct rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const long maxRssKb = usage.ru_maxrss; // Linux: kilobytes

    const double throughput = sink.rxWindow * kPayloadBytes * 8.0 / duration / 1e6;
    std::printf("{\"stations\": %u, \"throughput_mbps\": %.6f, \"events\": %" PRIu64
                ", \"wall_seconds\": %.6f, \"simulated_seconds\": %.6f"
                ", \"seed\": %u, \"run\": %u, \"transport\": \"%s\", \"duration\": %.6f"
                ", \"warmup\": %.6f, \"mpdu_bytes\": %u, \"rx_window\": %" PRIu64
                ", \"rx_total\": %" PRIu64 ", \"acked\": %" PRIu64 ", \"dropped\": %" PRIu64
                ", \"sent\": %" PRIu64 ", \"events_window\": %" PRIu64
                ", \"wall_seconds_window\": %.6f, \"max_rss_kb\": %ld}\n",
                stations,
                throughput,
                events,
                wall,
                simulated,
                seed,
                run,
                transport.c_str(),
                duration,
                warmup,
                mpduBytesSeen,
                sink.rxWindow,
                sink.rxTotal,
                acked,
                dropped,
                sent,
                atWindowEnd.events - atWindowStart.events,
                std::chrono::duration<double>(atWindowEnd.wall - atWindowStart.wall).count(),
                maxRssKb);

    Simulator::Destroy();

    if (sink.rxWrongSize != 0)
    {
        std::fprintf(stderr,
                     "saturation: the sink received %" PRIu64 " packets of unexpected size\n",
                     sink.rxWrongSize);
        return 4;
    }
    if (mpduBytesSeen != kMsduBytes + 24 + 4)
    {
        std::fprintf(stderr,
                     "saturation: data MPDU is %u B, expected %u B\n",
                     mpduBytesSeen,
                     kMsduBytes + 24 + 4);
        return 4;
    }
    return 0;
}
